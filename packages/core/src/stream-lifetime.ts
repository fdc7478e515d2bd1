/**
 * A subscription's stream lives no longer than the credential that opened it: it ends when the
 * token expires, and, when the application asks for it, when its verifier stops accepting it
 * (asked again at an interval: revocation through introspection). See
 * docs/contract.md#subscriptions.
 * @module
 */
import { TRPCError } from '@trpc/server';
import { isObservable, observableToAsyncIterable } from '@trpc/server/observable';

/** The longest delay `setTimeout` keeps (about 24.8 days); a later expiry is reached in steps. */
const MAX_DELAY = 2 ** 31 - 1;

/** Marks a stream already guarded, so that the outer security steps of a chain leave it alone. */
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

type Source = AsyncIterable<unknown>;

const isAsyncIterable = (value: unknown): value is Source =>
  typeof value === 'object' && value !== null && typeof (value as Source)[Symbol.asyncIterator] === 'function';

/** Whether `data` was returned by {@link streamWithLifetime} already. */
export const isGuardedStream = (data: unknown): boolean => typeof data === 'object' && data !== null && GUARDED in data;

/**
 * `data` (what a subscription resolver returned: an async iterable, or an observable) as an
 * async iterable that ends with an error when the lifetime is over: at `expiresAt`, or when
 * `recheck` rejects. An event that arrives after that is not delivered. Timers are cleared and
 * the source is returned whichever way the stream ends (done, stopped by the client, failed,
 * expired). Anything else is returned unchanged, for tRPC to refuse as it does.
 */
export function streamWithLifetime(data: unknown, lifetime: StreamLifetime, signal: AbortSignal | undefined): unknown {
  if (isGuardedStream(data)) return data;
  const source = isObservable(data) ? observableToAsyncIterable(data, signal ?? new AbortController().signal) : data;
  if (!isAsyncIterable(source)) return data;
  return { [GUARDED]: true, [Symbol.asyncIterator]: () => guarded(source, lifetime) };
}

/** A `TRPCError` to end a stream with, from whatever a recheck rejected with. */
const endingError = (error: unknown): TRPCError =>
  error instanceof TRPCError ? error : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'The token verifier failed', cause: error });

async function* guarded(source: Source, lifetime: StreamLifetime): AsyncGenerator<unknown, void, undefined> {
  const { makeExpiredError, recheck, recheckInterval } = lifetime;
  /** Why the stream ends; set once. */
  let ending: TRPCError | undefined;
  /** Rejects the wait for the source's next event, when one is pending. */
  let interrupt: ((error: TRPCError) => void) | undefined;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  let recheckTimer: ReturnType<typeof setTimeout> | undefined;
  const stopped = new AbortController();
  /** The earliest expiry known: a recheck may learn of an earlier one, never extend it. */
  let expiresAt = lifetime.expiresAt;

  const end = (error: TRPCError) => {
    ending ??= error;
    interrupt?.(ending);
  };
  const expireAt = (at: number | undefined) => {
    clearTimeout(expiryTimer);
    expiryTimer = undefined;
    if (at === undefined || stopped.signal.aborted) return;
    const delay = at * 1000 - Date.now();
    if (delay <= 0) end(makeExpiredError());
    else expiryTimer = setTimeout(expireAt, Math.min(delay, MAX_DELAY), at);
  };
  const scheduleRecheck = () => {
    recheckTimer = setTimeout(() => {
      recheck!(stopped.signal).then(
        (renewed) => {
          if (stopped.signal.aborted) return;
          if (renewed !== undefined && (expiresAt === undefined || renewed < expiresAt)) expireAt((expiresAt = renewed));
          scheduleRecheck();
        },
        (error: unknown) => {
          if (!stopped.signal.aborted) end(endingError(error));
        },
      );
    }, recheckInterval);
  };

  const iterator = source[Symbol.asyncIterator]();
  /** Whether a `next()` of the source is still running (the stream ended while it waited). */
  let waiting = false;
  try {
    expireAt(expiresAt);
    if (recheck !== undefined && recheckInterval !== undefined) scheduleRecheck();
    while (true) {
      if (ending !== undefined) throw ending;
      waiting = true;
      // A promise per event, not a race against one long-lived promise: every `Promise.race`
      // with the same pending promise would keep a reaction on it for the stream's life.
      const next = await new Promise<IteratorResult<unknown>>((resolve, reject) => {
        interrupt = reject;
        iterator.next().then(resolve, reject);
      });
      waiting = false;
      interrupt = undefined;
      if (next.done) return;
      if (ending !== undefined) throw ending;
      yield next.value;
    }
  } finally {
    interrupt = undefined;
    stopped.abort();
    clearTimeout(expiryTimer);
    clearTimeout(recheckTimer);
    if (waiting) {
      // The source is inside `next()` (waiting for an event): its `return()` would wait for that
      // event. It wakes on the request's signal, which tRPC aborts once this stream has ended.
      Promise.resolve(iterator.return?.()).catch(() => undefined);
    } else {
      await iterator.return?.();
    }
  }
}
