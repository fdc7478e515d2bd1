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

/** How long a stream may live, and how to learn that it may not live any longer. */
export interface StreamLifetime {
  /** When the credential expires, in seconds since the epoch (`undefined`: it does not). */
  readonly expiresAt: number | undefined;
  /** The error the stream ends with at `expiresAt`. */
  readonly makeExpiredError: () => TRPCError;
  /**
   * Asks again whether the credential is still accepted: resolves with its (new) expiry, rejects
   * with the error the stream ends with. Called every `recheckInterval` milliseconds, never twice
   * at once; `signal` aborts when the stream ends.
   */
  readonly recheck?: ((signal: AbortSignal) => Promise<number | undefined>) | undefined;
  /** Milliseconds between two `recheck` calls. */
  readonly recheckInterval?: number | undefined;
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

/**
 * `data` (what a subscription resolver returned: an async iterable, or an observable) made to end
 * with an error when the lifetime is over: at `expiresAt`, or when `recheck` rejects. An event
 * produced after that is not delivered. Whichever way the stream ends (done, stopped by the
 * client, failed, expired), timers are cleared, `stream` is ended, and the source is returned (or
 * unsubscribed). Nothing starts before the stream is consumed. An observable stays an observable
 * (what `createCaller` declares, and what tRPC's adapters take too), and can be iterated as well.
 * Anything else is returned unchanged, for tRPC to refuse as it does.
 */
export function streamWithLifetime(data: unknown, lifetime: StreamLifetime, stream: StreamEnd): unknown {
  if (guardOf(data) !== undefined) return data;
  if (isObservable(data)) return guardedObservable(data as Observable<unknown, unknown>, lifetime, stream);
  if (!isAsyncIterable(data)) return data;
  return guardedIterable(data, lifetime, stream);
}

/**
 * `data`, a stream another call guarded (a nested `createCaller`'s, returned as this call's),
 * guarded again with `lifetime`: it ends with this call's credentials as well as its own.
 *
 * @example
 * ```ts
 * return { ...result, data: streamGuardedAgain(result.data, lifetimeOf(state), stream) };
 * ```
 */
export function streamGuardedAgain(data: unknown, lifetime: StreamLifetime, stream: StreamEnd): unknown {
  if (!isAsyncIterable(data)) return data;
  return guardedIterable(data, lifetime, stream);
}

/** `source` as an async iterable whose every iteration runs guarded, marked as guarded by `stream`. */
const guardedIterable = (source: Source, lifetime: StreamLifetime, stream: StreamEnd) => ({
  [GUARDED]: stream,
  [Symbol.asyncIterator]: () => guarded(() => source, lifetime, stream),
});

/**
 * An observable that, once subscribed to, runs the guarded stream of `source`; unsubscribing ends
 * the stream. The source is converted (and subscribed to) only then, following `stream.signal`, so
 * its teardown runs as soon as the stream ends for any reason.
 */
function guardedObservable(source: Observable<unknown, unknown>, lifetime: StreamLifetime, stream: StreamEnd): unknown {
  const iterable = { [Symbol.asyncIterator]: () => guarded(() => observableToAsyncIterable(source, stream.signal), lifetime, stream) };
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

/** The refusal `stream` was ended with (the end of a nested call's stream passed on), if any. */
const refusalOf = (stream: StreamEnd): TRPCError | undefined =>
  stream.signal.aborted && stream.signal.reason instanceof TRPCError ? stream.signal.reason : undefined;

/** What the wait for the source's next event settles with when the stream was stopped meanwhile. */
const STOPPED: unique symbol = Symbol('trpc-oauth2.stopped') as never;

/** The stream of the source `open` opens (when first iterated), ending as {@link streamWithLifetime} says. */
async function* guarded(open: () => Source, lifetime: StreamLifetime, stream: StreamEnd): AsyncGenerator<unknown, void, undefined> {
  const { makeExpiredError, recheck, recheckInterval } = lifetime;
  /** Why the stream ends with an error; set once. */
  let ending: TRPCError | undefined = refusalOf(stream);
  // Ended before it started (the client went away, or this stream was consumed already): the
  // source is never opened.
  if (stream.signal.aborted) {
    if (ending !== undefined) throw ending;
    return;
  }
  /** Settles the wait for the source's next event, when one is pending. */
  let interrupt: ((why: TRPCError | typeof STOPPED) => void) | undefined;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  let recheckTimer: ReturnType<typeof setTimeout> | undefined;
  /** The earliest expiry known: a recheck may learn of an earlier one, never extend it. */
  let expiresAt = lifetime.expiresAt;

  const end = (error: TRPCError) => {
    ending ??= error;
    interrupt?.(ending);
  };
  // The end of a nested call's stream, returned as this one's, ends this one with its refusal
  // (its token expired, say): the client must hear a 401, not a stream that simply finished.
  const stop = () => {
    const refusal = refusalOf(stream);
    if (refusal === undefined) interrupt?.(STOPPED);
    else end(refusal);
  };
  /**
   * Why the stream must end now, if it must. Asked before every event, and not left to the
   * expiry timer alone: a source that keeps the CPU busy never lets a timer run, and an event it
   * produces after `expiresAt` is not delivered (docs/contract.md#subscriptions).
   */
  const endingNow = (): TRPCError | undefined => {
    if (ending === undefined && expiresAt !== undefined && expiresAt * 1000 <= Date.now()) ending = makeExpiredError();
    return ending;
  };
  const expireAt = (at: number | undefined) => {
    clearTimeout(expiryTimer);
    expiryTimer = undefined;
    if (at === undefined || stream.signal.aborted) return;
    const delay = at * 1000 - Date.now();
    if (delay <= 0) end(makeExpiredError());
    else expiryTimer = setTimeout(expireAt, Math.min(delay, MAX_DELAY), at);
  };
  const scheduleRecheck = () => {
    recheckTimer = setTimeout(() => {
      recheck!(stream.signal).then(
        (renewed) => {
          if (stream.signal.aborted) return;
          if (renewed !== undefined && (expiresAt === undefined || renewed < expiresAt)) expireAt((expiresAt = renewed));
          scheduleRecheck();
        },
        (error: unknown) => {
          if (!stream.signal.aborted) end(endingError(error));
        },
      );
    }, recheckInterval);
  };

  let iterator: AsyncIterator<unknown> | undefined;
  /** Whether a `next()` of the source is still running (the stream ended while it waited). */
  let waiting = false;
  stream.signal.addEventListener('abort', stop);
  try {
    iterator = open()[Symbol.asyncIterator]();
    expireAt(expiresAt);
    if (recheck !== undefined && recheckInterval !== undefined) scheduleRecheck();
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
      yield next.value;
    }
  } finally {
    interrupt = undefined;
    stream.signal.removeEventListener('abort', stop);
    clearTimeout(expiryTimer);
    clearTimeout(recheckTimer);
    // Aborts `ctx.streamSignal` (and the conversion of an observable, which follows it): a
    // resolver waiting on it for an event stops now. tRPC does not abort the resolver's own
    // `opts.signal` when a stream ends by itself.
    stream.end(ending);
    if (waiting) {
      // The source is inside `next()`: its `return()` is queued behind that pending call, and
      // runs once the source wakes (on `ctx.streamSignal`, just aborted); the end is not held up.
      Promise.resolve(iterator?.return?.()).catch(() => undefined);
    } else {
      await iterator?.return?.();
    }
  }
}
