/**
 * A subscription's stream lives no longer than the credential that opened it: it ends when the
 * token expires, and, when the application asks for it, when its verifier stops accepting it
 * (asked again at an interval: revocation through introspection). See
 * docs/contract.md#subscriptions.
 * @module
 */
import { TRPCError } from '@trpc/server';
import { isObservable, observable, observableToAsyncIterable, type Observable, type Observer } from '@trpc/server/observable';

/** The longest delay `setTimeout` keeps (about 24.8 days); a later expiry is reached in steps. */
const MAX_DELAY = 2 ** 31 - 1;

/** Marks a stream already guarded (its value: the end it ends), so that the outer security steps of a chain leave it alone. */
const GUARDED: unique symbol = Symbol('trpc-oauth2.guarded-stream') as never;
/** Marks a promise or a stream inside a result already guarded (its value: the {@link StreamOwner} it was guarded for). */
const GUARDED_FOR: unique symbol = Symbol('trpc-oauth2.guarded-for') as never;

/** How long a stream may live, and how to learn that it may not live any longer. */
export interface StreamLifetime {
  /** When the credential expires, in seconds since the epoch (`undefined`: it does not). */
  readonly expiresAt: number | undefined;
  /** The error the stream ends with at `expiresAt`. */
  readonly makeExpiredError: () => TRPCError;
  /**
   * Asks again whether the credential is still accepted: resolves with its (new) expiry, rejects
   * with the error the stream ends with. Called every `recheckInterval` milliseconds, never twice
   * at once; `signal` aborts when the stream ends. One not settled within `recheckInterval` ends
   * the stream with a 503 (see `unansweredRecheck`).
   */
  readonly recheck?: ((signal: AbortSignal) => Promise<number | undefined>) | undefined;
  /** Milliseconds between two `recheck` calls. */
  readonly recheckInterval?: number | undefined;
}

/**
 * The credentials the streams of one call's result live by, watched once for all of them: a
 * result may hold several streams (an async generator, and promises and generators inside the
 * object it returned, or inside what a stream yields), and they share one expiry timer and one
 * recheck loop, so a recheck asks the verifier once per interval however many streams are open.
 * The timers run while at least one stream follows the watch. Once the credentials ended (expired,
 * refused by a recheck) they stay ended: a stream of the result opened later ends at once.
 */
export class CredentialWatch {
  #expiresAt: number | undefined;
  #ending: TRPCError | undefined;
  readonly #lifetime: StreamLifetime;
  readonly #followers = new Set<(error: TRPCError) => void>();
  #expiryTimer: ReturnType<typeof setTimeout> | undefined;
  #recheckTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the recheck under way must have settled by. */
  #recheckDeadline: ReturnType<typeof setTimeout> | undefined;
  /** Aborts when the timers stop: a recheck still running then is not listened to. */
  #running: AbortController | undefined;
  /** The recheck under way, if any: rechecks never overlap, even across a stop and a start (one still under way when the next is due ends the streams). */
  #inFlight: Promise<void> | undefined;
  /** The call's signal: once the client went away, nothing is delivered, and the timers stop. */
  readonly #request: AbortSignal | undefined;

  constructor(lifetime: StreamLifetime, request: AbortSignal | undefined) {
    this.#lifetime = lifetime;
    this.#expiresAt = lifetime.expiresAt;
    this.#request = request;
  }

  /**
   * Why the streams must end now, if they must. Asked before every event, and not left to the
   * expiry timer alone: a source that keeps the CPU busy never lets a timer run, and an event it
   * produces after `expiresAt` is not delivered (docs/contract.md#subscriptions).
   */
  endingNow(): TRPCError | undefined {
    if (this.#ending === undefined && this.#expiresAt !== undefined && this.#expiresAt * 1000 <= Date.now()) this.#end(this.#expiredError());
    return this.#ending;
  }

  /**
   * The error the streams end with at the expiry. The application's factory (`makeTokenExpiredError`,
   * `makeInvalidTokenError`) runs here in a timer, outside any request: one that throws ends the
   * streams with a 500 carrying what it threw, as it would fail the opening check, never as an
   * uncaught exception (which ends the process) leaving the streams open.
   */
  #expiredError(): TRPCError {
    try {
      return this.#lifetime.makeExpiredError();
    } catch (error) {
      return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'The expiry refusal could not be made', cause: error });
    }
  }

  /** Calls `onEnd` once, when the credentials end; returns what stops following them. */
  follow(onEnd: (error: TRPCError) => void): () => void {
    this.#followers.add(onEnd);
    if (this.#followers.size === 1) this.#start();
    return () => {
      if (this.#followers.delete(onEnd) && this.#followers.size === 0) this.#stop();
    };
  }

  #end(error: TRPCError): void {
    if (this.#ending !== undefined) return;
    this.#ending = error;
    this.#stop();
    for (const onEnd of [...this.#followers]) onEnd(error);
  }

  /** The client went away: no stream of the result is delivered any longer (each ends on the call's signal itself). */
  readonly #leave = () => {
    this.#followers.clear();
    this.#stop();
  };

  #start(): void {
    if (this.#ending !== undefined || this.#request?.aborted) return;
    this.#request?.addEventListener('abort', this.#leave, { once: true });
    const running = (this.#running = new AbortController());
    this.#expireAt(this.#expiresAt);
    const { recheck, recheckInterval } = this.#lifetime;
    if (recheck !== undefined && recheckInterval !== undefined && this.#ending === undefined) this.#scheduleRecheck(recheck, recheckInterval, running.signal);
  }

  #stop(): void {
    this.#request?.removeEventListener('abort', this.#leave);
    clearTimeout(this.#expiryTimer);
    clearTimeout(this.#recheckTimer);
    clearTimeout(this.#recheckDeadline);
    this.#expiryTimer = this.#recheckTimer = this.#recheckDeadline = undefined;
    this.#running?.abort();
    this.#running = undefined;
  }

  #expireAt(at: number | undefined): void {
    clearTimeout(this.#expiryTimer);
    this.#expiryTimer = undefined;
    if (at === undefined || this.#running === undefined) return;
    const delay = at * 1000 - Date.now();
    if (delay <= 0) this.#end(this.#expiredError());
    else this.#expiryTimer = setTimeout(() => this.#expireAt(at), Math.min(delay, MAX_DELAY));
  }

  #scheduleRecheck(recheck: NonNullable<StreamLifetime['recheck']>, interval: number, running: AbortSignal): void {
    const run = () => {
      if (running.aborted) return;
      // A recheck that never settles (a verifier with no timeout of its own, its endpoint
      // hanging) would keep the stream open on a credential nobody confirms, and hold off every
      // later recheck: by the time the next one is due, the stream ends as when the verifier fails.
      const deadline = (this.#recheckDeadline = setTimeout(() => {
        if (this.#recheckDeadline === deadline) this.#recheckDeadline = undefined;
        if (!running.aborted) this.#end(unansweredRecheck());
      }, interval));
      const settled = () => {
        clearTimeout(deadline);
        if (this.#recheckDeadline === deadline) this.#recheckDeadline = undefined;
      };
      const attempt = recheck(running).then(
        (renewed) => {
          settled();
          if (running.aborted) return;
          if (renewed !== undefined && (this.#expiresAt === undefined || renewed < this.#expiresAt)) this.#expireAt((this.#expiresAt = renewed));
          if (this.#ending === undefined) this.#scheduleRecheck(recheck, interval, running);
        },
        (error: unknown) => {
          settled();
          if (!running.aborted) this.#end(endingError(error));
        },
      );
      this.#inFlight = attempt;
      void attempt.then(() => {
        if (this.#inFlight === attempt) this.#inFlight = undefined;
      });
    };
    this.#recheckTimer = setTimeout(() => {
      this.#recheckTimer = undefined;
      // Still under way: a recheck the streams stopped following (all of them let go, then one
      // followed again), started at least an interval ago and not settled since.
      if (this.#inFlight === undefined) run();
      else this.#end(unansweredRecheck());
    }, interval);
  }
}

/**
 * The end of one subscription call's stream: `signal` aborts once the stream ended, whichever way
 * (the client went away, the token expired, a recheck refused it, the source finished or failed).
 * The resolver sees it as `ctx.streamSignal`. tRPC's own `opts.signal` does not do: its HTTP
 * adapters abort it when the client goes away, not when a stream ends by itself, so a resolver
 * waiting on it for an event would wait forever (docs/contract.md#subscriptions).
 */
export interface StreamEnd {
  readonly signal: AbortSignal;
  /** The call's own signal (tRPC's `opts.signal`) this end follows. */
  readonly request: AbortSignal | undefined;
  /** The call it ends (tRPC's `opts.getRawInput`, one per call): a ctx spread into a nested call carries this end, which is not that call's. */
  readonly call?: unknown;
  /** Ends the stream, once: aborts `signal` (with `reason`) and stops following `request`. */
  end(reason?: unknown): void;
}

/** A new end of a stream, following `request` (the client going away ends the stream). */
export function streamEnd(request: AbortSignal | undefined, call?: unknown): StreamEnd {
  const controller = new AbortController();
  const followRequest = () => controller.abort(request!.reason);
  if (request?.aborted) controller.abort(request.reason);
  else request?.addEventListener('abort', followRequest, { once: true });
  return {
    signal: controller.signal,
    request,
    call,
    end(reason) {
      // No listener stays on the request's signal once the stream ended.
      request?.removeEventListener('abort', followRequest);
      controller.abort(reason);
    },
  };
}

type Source = AsyncIterable<unknown>;

const isAsyncIterable = (value: unknown): value is Source =>
  typeof value === 'object' && value !== null && typeof (value as Source)[Symbol.asyncIterator] === 'function';

/** The end a stream returned by {@link streamWithLifetime} ends, or `undefined` for any other value. */
export const guardOf = (data: unknown): StreamEnd | undefined =>
  typeof data === 'object' && data !== null && GUARDED in data ? (data as { [GUARDED]: StreamEnd })[GUARDED] : undefined;

/** Whom a stream or a promise was guarded for, or `undefined` when it was not guarded. */
const ownerOf = (value: unknown): StreamOwner | undefined =>
  guardOf(value) ??
  ((typeof value === 'object' || typeof value === 'function') && value !== null && GUARDED_FOR in value ? (value as { [GUARDED_FOR]: StreamOwner })[GUARDED_FOR] : undefined);

/**
 * `data` (what a subscription resolver returned: an async iterable, or an observable) made to end
 * with an error when the credentials `watch` follows end: at their expiry, or when a recheck
 * refuses them. An event produced after that is not delivered. Whichever way the stream ends
 * (done, stopped by the client, failed, expired), it stops following the watch, `stream` is ended,
 * and the source is returned (or unsubscribed). Nothing starts before the stream is consumed. An
 * observable stays an observable (what `createCaller` declares, and what tRPC's adapters take
 * too), and can be iterated as well. Anything else is returned unchanged, for tRPC to refuse as it
 * does. What the stream yields is guarded as tRPC streams it (see {@link guardedEntries}).
 */
export function streamWithLifetime(data: unknown, watch: CredentialWatch, stream: StreamEnd): unknown {
  if (guardOf(data) !== undefined) return data;
  if (isObservable(data)) return guardedObservable(data as Observable<unknown, unknown>, watch, stream);
  if (!isAsyncIterable(data)) return data;
  return guardedIterable(data, watch, stream);
}

/**
 * `data`, a stream another call guarded (a nested `createCaller`'s, returned as this call's),
 * guarded again with `watch`: it ends with this call's credentials as well as its own.
 *
 * @example
 * ```ts
 * return { ...result, data: streamGuardedAgain(result.data, new CredentialWatch(lifetimeOf(state)), stream) };
 * ```
 */
export function streamGuardedAgain(data: unknown, watch: CredentialWatch, stream: StreamEnd): unknown {
  // An observable stays an observable (a `createCaller` caller subscribes to it), as it does the first time.
  if (isObservable(data)) return guardedObservable(data as Observable<unknown, unknown>, watch, stream);
  if (!isAsyncIterable(data)) return data;
  return guardedIterable(data, watch, stream);
}

/**
 * Whether tRPC's stream encoder (`httpBatchStreamLink`'s) streams `value` by itself: a promise
 * (an object or function with `then` and `catch`), or an async iterable that is not an array, as
 * tRPC's own `isPromise` and `isAsyncIterable` decide.
 */
const isStreamedValue = (value: unknown): boolean => {
  if (typeof value === 'function') return typeof (value as { then?: unknown }).then === 'function' && typeof (value as { catch?: unknown }).catch === 'function';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  return (
    (typeof (value as { then?: unknown }).then === 'function' && typeof (value as { catch?: unknown }).catch === 'function') ||
    Symbol.asyncIterator in value
  );
};

/**
 * Whether `value` is an object tRPC's stream encoder looks into, as its vendored `is-plain-object`
 * decides: `Object.prototype.toString` says `[object Object]`, and it was made by no constructor,
 * or by one whose prototype is a plain object's (`Object`, from any realm).
 */
function isPlainObject(value: object): boolean {
  if (Object.prototype.toString.call(value) !== '[object Object]') return false;
  const made = (value as { constructor?: unknown }).constructor;
  if (made === undefined) return true;
  const prototype = (made as { prototype?: unknown }).prototype;
  return (
    typeof prototype === 'object' &&
    prototype !== null &&
    Object.prototype.toString.call(prototype) === '[object Object]' &&
    Object.prototype.hasOwnProperty.call(prototype, 'isPrototypeOf')
  );
}

/**
 * Whether `data` holds streams tRPC streams inside it: a plain object with a promise or an async
 * iterable among its own values (tRPC's encoder streams those, and what they produce, and no
 * deeper). Asked of every successful result of a verified call that is not a stream itself: a
 * look at each of its values, and at its prototype only when one of them streams.
 */
export function hasStreamedEntries(data: unknown): boolean {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return false;
  for (const key in data) {
    if (isStreamedValue((data as Record<string, unknown>)[key]) && Object.prototype.hasOwnProperty.call(data, key)) return isPlainObject(data);
  }
  return false;
}

/** Who a guarded value belongs to: the call's signal (the client going away) and its input reader (the call itself). */
export interface StreamOwner {
  readonly request: AbortSignal | undefined;
  readonly call?: unknown;
}

/**
 * `value` with everything tRPC would stream of it guarded by `watch`, as tRPC's encoder walks a
 * result (and every value a stream of it produces): `value` itself when it is a promise or an
 * async iterable, else, for a plain object, each of its own values that is one (in a copy with the
 * same keys, in the same order). A stream this very call guarded already (an inner security step
 * of its chain did) is left as it is; one another call guarded (a nested `createCaller`'s) is
 * guarded again, with this call's credentials too. Anything else is returned as it is.
 */
export function guardedEntries(value: unknown, watch: CredentialWatch, owner: StreamOwner): unknown {
  if (isStreamedValue(value)) return guardedValue(value, watch, owner);
  if (!hasStreamedEntries(value)) return value;
  const copy = Object.create(Object.getPrototypeOf(value) as object | null) as object;
  // Defined, not assigned: an own `__proto__` key (JSON.parse makes them) stays a key of the copy.
  for (const [key, entry] of Object.entries(value as object)) {
    Object.defineProperty(copy, key, { value: isStreamedValue(entry) ? guardedValue(entry, watch, owner) : entry, writable: true, enumerable: true, configurable: true });
  }
  return copy;
}

/** A promise or an async iterable (an observable with it), guarded by `watch` unless this very call guarded it already. */
function guardedValue(value: unknown, watch: CredentialWatch, owner: StreamOwner): unknown {
  const guard = ownerOf(value);
  if (guard !== undefined && guard.call === owner.call && guard.request === owner.request) return value;
  if (isAsyncIterable(value)) return nestedIterable(value, watch, owner);
  // A promise: it needs no end of its own (nothing aborts it), the watch follows the client.
  return guardedPromise(value as PromiseLike<unknown>, watch, owner);
}

const ignore = () => undefined;

/**
 * Marks a rejection of `source` handled without consuming it: a real promise (another call's
 * guarded one included, which this does not start) gets a reaction attached through
 * `Promise.prototype.then` itself, never through its own `then`. The guard answers for the
 * promises it holds: one tRPC never reads (in an answer it does not stream, in an event) and
 * that rejects is not reported as unhandled. Any other thenable is left alone until the guarded
 * promise is consumed: its `then` may start work (a query builder runs on `then`).
 */
function markHandled(source: PromiseLike<unknown>): void {
  if (source instanceof Promise) void Promise.prototype.then.call(source, ignore, ignore);
}

/**
 * A guarded promise that starts nothing until it is consumed (docs/contract.md#subscriptions).
 * tRPC consumes a promise in a result only when it streams it (`httpBatchStreamLink`); in an
 * answer it does not stream (`httpBatchLink`, `httpLink`: refused with 415) or in a Server-Sent
 * Event or a WebSocket message (written as `{}`) nobody ever reads it, and following the
 * credentials from the start would keep their expiry timer and recheck loop (calls to an
 * introspection endpoint) running until the application's promise settles: forever, for one that
 * never does.
 *
 * A subclass of `Promise`, not an object with a `then`: `await`, `Promise.resolve`, `Promise.all`,
 * `.catch` and `.finally` all call `then` on a promise whose `constructor` is not `Promise`
 * itself, and it stays `instanceof Promise` (what a `createCaller` caller may check, as tRPC's
 * encoder checks for `then` and `catch`). The first `then` makes the promise that does the work
 * ({@link settledGuarded}), once: every consumer shares it. The promise itself never settles (its
 * executor keeps nothing), so reading it past `then` (`Promise.prototype.then.call`) waits
 * forever, and `util.inspect` shows it pending; `JSON.stringify` writes it `{}` as any promise.
 */
class LazyGuardedPromise extends Promise<unknown> {
  // Promises derived from it (`.finally`, `Promise.prototype.then.call`) are plain ones: a lazy
  // one the engine made would have nothing to make on its first `then`.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** Makes the working promise; dropped once it did, so the source and the watch go with it. */
  #make: (() => Promise<unknown>) | undefined;
  #working: Promise<unknown> | undefined;

  constructor(make: () => Promise<unknown>, owner: StreamOwner) {
    super(ignore);
    this.#make = make;
    Object.defineProperty(this, GUARDED_FOR, { value: owner });
  }

  override then<TResult1 = unknown, TResult2 = never>(
    onFulfilled?: ((value: unknown) => TResult1 | PromiseLike<TResult1>) | null,
    onRejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    if (this.#working === undefined) {
      this.#working = this.#make!();
      this.#make = undefined;
    }
    return this.#working.then(onFulfilled, onRejected);
  }
}

/**
 * A promise settling as `source` does, unless the credentials end first, guarded for `owner`. It
 * starts when consumed (see {@link LazyGuardedPromise}): consumed after the credentials ended, it
 * rejects with their error at once. A rejection of `source` is handled meanwhile (see
 * {@link markHandled}).
 */
function guardedPromise(source: PromiseLike<unknown>, watch: CredentialWatch, owner: StreamOwner): Promise<unknown> {
  markHandled(source);
  return new LazyGuardedPromise(() => settledGuarded(source, watch, owner), owner);
}

/**
 * The work of a guarded promise, once consumed: a promise settling as `source` does, unless the
 * credentials end first: then (or when `source` settles after their expiry) it rejects with their
 * error, and the value is not delivered. What the value holds is guarded as tRPC streams it. It
 * follows the watch from now until it settles or the client goes away. A rejection nobody waits
 * for is not reported as unhandled: it is the guard's, not the application's.
 */
function settledGuarded(source: PromiseLike<unknown>, watch: CredentialWatch, owner: StreamOwner): Promise<unknown> {
  const promise = new Promise<unknown>((resolve, reject) => {
    const early = watch.endingNow();
    if (early !== undefined) {
      // Not listened to any longer: its own rejection must not be reported as unhandled either
      // (a real promise's is marked handled already, without starting it if it is lazy too).
      if (!(source instanceof Promise)) source.then(ignore, ignore);
      reject(early);
      return;
    }
    let settled = false;
    let unfollow: () => void = ignore;
    const finish = () => {
      settled = true;
      unfollow();
    };
    unfollow = watch.follow((error) => {
      finish();
      reject(error);
    });
    // The credentials may end while `follow` starts their timers (an expiry reached just now).
    if (settled) unfollow();
    source.then(
      (value) => {
        if (settled) return;
        const ending = watch.endingNow();
        finish();
        if (ending !== undefined) reject(ending);
        else resolve(guardedEntries(value, watch, owner));
      },
      (error: unknown) => {
        if (settled) return;
        finish();
        reject(error);
      },
    );
  });
  promise.catch(ignore);
  return promise;
}

/**
 * A stream inside a result, guarded: its end (which follows the call's signal) is made when it is
 * iterated, so one nobody iterates (tRPC writes it as `{}` in a Server-Sent Event, a caller skips
 * it) holds nothing on the call's signal however many events carried one.
 */
const nestedIterable = (source: Source, watch: CredentialWatch, owner: StreamOwner) => ({
  [GUARDED_FOR]: owner,
  [Symbol.asyncIterator]: () => guarded(() => source, watch, streamEnd(owner.request, owner.call)),
});

/** `source` as an async iterable whose every iteration runs guarded, marked as guarded by `stream`. */
const guardedIterable = (source: Source, watch: CredentialWatch, stream: StreamEnd) => ({
  [GUARDED]: stream,
  [Symbol.asyncIterator]: () => guarded(() => source, watch, stream),
});

/**
 * An observable that, once subscribed to, runs the guarded stream of `source`; unsubscribing ends
 * the stream. The source is converted (and subscribed to) only then, following `stream.signal`, so
 * its teardown runs as soon as the stream ends for any reason.
 */
function guardedObservable(source: Observable<unknown, unknown>, watch: CredentialWatch, stream: StreamEnd): unknown {
  const iterable = { [Symbol.asyncIterator]: () => guarded(() => observableToAsyncIterable(source, stream.signal), watch, stream) };
  const guardedSource = observable<unknown, unknown>((observer) => {
    const delivery = { closed: false };
    void deliver(iterable, observer, delivery);
    return () => {
      delivery.closed = true;
      stream.end();
    };
  });
  return Object.assign(guardedSource, { [GUARDED]: stream }, iterable);
}

/** Passes what `iterable` yields on to `observer`, and how it ends; nothing once the observer unsubscribed. */
async function deliver(iterable: Source, observer: Observer<unknown, unknown>, delivery: { closed: boolean }): Promise<void> {
  try {
    // `for await` returns the stream (its timers cleared, its source torn down) if `next` throws.
    for await (const value of iterable) if (!delivery.closed) observer.next(value);
    if (!delivery.closed) observer.complete();
  } catch (error) {
    if (!delivery.closed) observer.error(error);
  }
}

/** A `TRPCError` to end a stream with, from whatever a recheck rejected with. */
const endingError = (error: unknown): TRPCError =>
  error instanceof TRPCError ? error : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'The token verifier failed', cause: error });

/**
 * What a stream ends with when a recheck has not settled within `recheckInterval`: 503, the
 * verifier's answer being what is missing, as when it fails (docs/contract.md#subscriptions).
 */
const unansweredRecheck = (): TRPCError =>
  new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'The token verifier did not answer a recheck in time' });

/** The refusal `stream` was ended with (the end of a nested call's stream passed on), if any. */
const refusalOf = (stream: StreamEnd): TRPCError | undefined =>
  stream.signal.aborted && stream.signal.reason instanceof TRPCError ? stream.signal.reason : undefined;

/** What the wait for the source's next event settles with when the stream was stopped meanwhile. */
const STOPPED: unique symbol = Symbol('trpc-oauth2.stopped') as never;

/** The stream of the source `open` opens (when first iterated), ending as {@link streamWithLifetime} says. */
async function* guarded(open: () => Source, watch: CredentialWatch, stream: StreamEnd): AsyncGenerator<unknown, void, undefined> {
  /** Why the stream ends with an error; set once. */
  let ending: TRPCError | undefined = refusalOf(stream);
  // Ended before it started (the client went away, or this stream was consumed already): the
  // source is never opened.
  if (stream.signal.aborted) {
    if (ending !== undefined) throw ending;
    return;
  }
  // The credentials ended already (another stream of the result saw them expire or refused).
  ending = watch.endingNow();
  if (ending !== undefined) {
    stream.end(ending);
    throw ending;
  }
  /** Settles the wait for the source's next event, when one is pending. */
  let interrupt: ((why: TRPCError | typeof STOPPED) => void) | undefined;

  /** Whether the stream waits at a `yield` for its consumer to ask for the next event (a client that does not read). */
  let suspended = false;
  /** Whether the stream was ended (and its source returned) while suspended, before the consumer came back. */
  let released = false;
  const end = (error: TRPCError) => {
    ending ??= error;
    if (suspended) release();
    else interrupt?.(ending);
  };
  // The end of a nested call's stream, returned as this one's, ends this one with its refusal
  // (its token expired, say): the client must hear a 401, not a stream that simply finished.
  const stop = () => {
    const refusal = refusalOf(stream);
    if (refusal === undefined) interrupt?.(STOPPED);
    else end(refusal);
  };
  const endingNow = (): TRPCError | undefined => (ending ??= watch.endingNow());
  const owner: StreamOwner = { request: stream.request, call: stream.call };

  let iterator: AsyncIterator<unknown> | undefined;
  let unfollow: (() => void) | undefined;
  // The credentials ended while the consumer is not asking for events (its client stopped
  // reading, the response's buffers are full): the stream ends now, not once the client reads
  // again. `ctx.streamSignal` aborts and the source (waiting at its own `yield`) is returned; the
  // consumer, if it ever asks again, gets the error.
  const release = () => {
    if (released) return;
    released = true;
    letGo();
    // Run from the expiry timer or a recheck, outside any request: a source whose `return()`
    // throws at once (a hand-written iterator's) must not escape as an uncaught exception.
    try {
      Promise.resolve(iterator?.return?.()).catch(() => undefined);
    } catch {
      // The source failed to stop; the stream has ended all the same.
    }
  };
  // Stops following the credentials and the nested call's end, and aborts `ctx.streamSignal` (and
  // the conversion of an observable, which follows it): a resolver waiting on it for an event stops
  // now. tRPC does not abort the resolver's own `opts.signal` when a stream ends by itself.
  const letGo = () => {
    stream.signal.removeEventListener('abort', stop);
    unfollow?.();
    stream.end(ending);
  };
  /** Whether a `next()` of the source is still running (the stream ended while it waited). */
  let waiting = false;
  stream.signal.addEventListener('abort', stop);
  try {
    iterator = open()[Symbol.asyncIterator]();
    unfollow = watch.follow(end);
    while (!stream.signal.aborted || endingNow() !== undefined) {
      if (endingNow() !== undefined) throw ending;
      waiting = true;
      // A promise per event, not a race against one long-lived promise: every `Promise.race`
      // with the same pending promise would keep a reaction on it for the stream's life.
      const next = await new Promise<IteratorResult<unknown> | typeof STOPPED>((resolve, reject) => {
        interrupt = (why) => (why === STOPPED ? resolve(STOPPED) : reject(why));
        iterator!.next().then(resolve, reject);
      });
      interrupt = undefined;
      if (next === STOPPED) return;
      waiting = false;
      if (next.done) return;
      if (endingNow() !== undefined) throw ending;
      // What tRPC streams of the event (a promise inside it, say) lives by the same credentials.
      suspended = true;
      try {
        yield guardedEntries(next.value, watch, owner);
      } finally {
        suspended = false;
      }
    }
  } finally {
    interrupt = undefined;
    letGo();
    if (released) {
      // Returned already, when the stream ended while suspended.
    } else if (waiting) {
      // The source is inside `next()`: its `return()` is queued behind that pending call, and
      // runs once the source wakes (on `ctx.streamSignal`, just aborted); the end is not held up.
      Promise.resolve(iterator?.return?.()).catch(() => undefined);
    } else {
      await iterator?.return?.();
    }
  }
}
