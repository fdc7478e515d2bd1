/**
 * What a security step does for a subscription: once the resolver returned its stream, the stream
 * is made to end with the credentials that opened it (every principal the chain verified): at
 * the earliest `expiresAt`, and, for a reader created with `recheckInterval`, as soon as its
 * verifier refuses the token again or stops granting the chain's scopes. The resolver is told when
 * its stream ended, whichever way, by `ctx.streamSignal`. A query's or a mutation's stream (its
 * resolver returned an async iterable or an observable, which tRPC streams to `httpBatchStreamLink`
 * and `createCaller` hands over, or an object holding streams and promises tRPC streams too) ends
 * the same way, without `ctx.streamSignal`.
 * See docs/contract.md#subscriptions.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import type { Principal } from './readers/principal.js';
import { checkState, grantOf, type Consultation, type SecurityState } from './readers/security-state.js';
import type { MiddlewareOptions, MiddlewareResult } from './security-scopes.js';
import { CredentialWatch, guardOf, guardedEntries, hasStreamedEntries, streamEnd, streamGuardedAgain, streamWithLifetime, type StreamEnd, type StreamLifetime } from './stream-lifetime.js';

/** How a verified reader renews its principal while a stream its call returned (a subscription's, or a streamed query's or mutation's) runs. */
export interface PrincipalRenewal {
  /** The error a stream ends with when the token expires. */
  readonly makeExpiredError: () => TRPCError;
  /** Verifies the token again, bypassing caches (`fresh: true`); rejects with the reader's refusal. */
  readonly recheck?: ((signal: AbortSignal) => Promise<Principal>) | undefined;
  /** Milliseconds between two rechecks (the reader's `recheckInterval`). */
  readonly recheckInterval?: number | undefined;
}

type Verified = Consultation & { readonly principal: Principal; readonly renewal?: PrincipalRenewal | undefined };

/** The ctx key of a subscription call's {@link StreamEnd}: private, so no middleware of the application writes it. */
export const STREAM_END: unique symbol = Symbol('trpc-oauth2.stream-end') as never;

/**
 * The end of this subscription call's stream: the one an earlier security step of the chain made
 * (one `ctx.streamSignal` per call, however many steps), else a new one.
 */
export function streamEndOf(opts: MiddlewareOptions<object>): StreamEnd {
  const earlier = (opts.ctx as { [STREAM_END]?: StreamEnd })[STREAM_END];
  // A ctx spread into another call (`createCaller` inside a resolver) carries the key too: the end
  // is this call's only when it follows this call's signal and was made for this very call (two
  // calls without a signal share `undefined`; each has its own input reader).
  const ours = earlier !== undefined && earlier.request === opts.signal && earlier.call === opts.getRawInput && !earlier.signal.aborted;
  return ours ? earlier : streamEnd(opts.signal, opts.getRawInput);
}

const earliest = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/**
 * How long the stream of a call with `state` lives: until the earliest expiry of its principals,
 * and, when a reader rechecks, until a recheck refuses the token, or finds its renewed principal
 * no longer meeting what the chain required when the stream opened: a scope no longer granted
 * (with the reader's scope hierarchy and its own 403), or a step-up requirement no longer met
 * (an `acr` no longer accepted, an `authTime` more than `maxAge` ago by now: its own 401), as the
 * opening check refuses them.
 */
function lifetimeOf(state: SecurityState): StreamLifetime {
  const verified = state.consulted.filter((consultation): consultation is Verified => consultation.principal !== null);
  let expiresAt: number | undefined;
  let recheckInterval: number | undefined;
  // Each verified principal's expiry as last known (a recheck may make it earlier): the stream
  // ends with the refusal of the reader whose principal expires first, whichever step it is.
  const expiries = new Map<Verified, number | undefined>();
  for (const consultation of verified) {
    const { principal, renewal } = consultation;
    expiries.set(consultation, principal.expiresAt);
    expiresAt = earliest(expiresAt, principal.expiresAt);
    if (renewal?.recheck !== undefined) recheckInterval = earliest(recheckInterval, renewal.recheckInterval);
  }
  const renewing = verified.filter((consultation) => consultation.renewal?.recheck !== undefined);
  const recheck =
    renewing.length === 0
      ? undefined
      : async (recheckSignal: AbortSignal) => {
          let renewedExpiry: number | undefined;
          for (const consultation of renewing) {
            const principal = await consultation.renewal!.recheck!(recheckSignal);
            // The opening check again, on the renewed principal alone.
            checkState({ ...state, consulted: [{ ...consultation, principal, granted: grantOf(principal) }] });
            // A recheck makes the expiry earlier, never later.
            expiries.set(consultation, earliest(expiries.get(consultation), principal.expiresAt));
            renewedExpiry = earliest(renewedExpiry, principal.expiresAt);
          }
          return renewedExpiry;
        };
  // Without a verified principal (`autoError: false`, no credential) the stream never expires.
  const first = verified[0] ?? state.consulted[0]!;
  const makeTokenExpiredError = (): TRPCError => {
    let expiring: Verified | undefined;
    for (const [consultation, at] of expiries) if (at !== undefined && (expiring === undefined || at < expiries.get(expiring)!)) expiring = consultation;
    const step = expiring ?? first;
    return step.renewal?.makeExpiredError() ?? step.makeNotAuthenticatedError();
  };
  // A step-up's `maxAge` passing ends the stream by itself, with the step-up's refusal, as the
  // opening check would refuse it by then: without a recheck the principal does not change, so
  // the moment is known now.
  let metUntil: number | undefined;
  for (const check of state.authentication) if (check.metUntil !== undefined) for (const consultation of verified) metUntil = earliest(metUntil, check.metUntil(consultation));
  if (metUntil === undefined || (expiresAt !== undefined && expiresAt <= metUntil)) return { expiresAt, makeExpiredError: makeTokenExpiredError, recheck, recheckInterval };
  const tokenExpiresAt = expiresAt;
  const makeExpiredError = () => {
    if (tokenExpiresAt !== undefined && tokenExpiresAt * 1000 <= Date.now()) return makeTokenExpiredError();
    try {
      checkState(state);
    } catch (error) {
      return error as TRPCError;
    }
    return makeTokenExpiredError();
  };
  return { expiresAt: metUntil, makeExpiredError, recheck, recheckInterval };
}

/** One watch of the credentials of `state` for every stream of one call's result (its signal: `request`). */
const watchOf = (state: SecurityState, request: AbortSignal | undefined): CredentialWatch => new CredentialWatch(lifetimeOf(state), request);

/**
 * `next`, with the stream of a successful subscription ending with the principals of `state`,
 * and `stream` (`ctx.streamSignal`) ended with it. A stream an inner step of the chain guarded
 * already (it saw every principal and scope this step sees, and more) is left alone; one another
 * call guarded (a nested `createCaller`'s) is guarded again with this call's. When there
 * is no stream to guard (the call was refused or failed, or the resolver returned no stream),
 * `stream` ends at once.
 */
export function endingWithCredentials(next: Promise<MiddlewareResult<any>>, state: SecurityState, stream: StreamEnd): Promise<MiddlewareResult<any>> {
  return next.then(
    (result) => {
      const inner = result.ok ? guardOf(result.data) : undefined;
      // Guarded by an inner step of this chain: it saw every principal and scope this step sees.
      if (inner === stream) return result;
      if (inner !== undefined && result.ok) {
        // Guarded for another call (a stream of a nested `createCaller` returned as this one's):
        // it ends with that call's credentials, and with this call's too, which that call never
        // saw (another token, or this one's consultation dropped from a ctx spread from this one).
        endsWith(stream, inner);
        return { ...result, data: streamGuardedAgain(result.data, watchOf(state, stream.request), stream) };
      }
      const data = result.ok ? streamWithLifetime(result.data, watchOf(state, stream.request), stream) : undefined;
      if (guardOf(data) === undefined) {
        stream.end();
        return result;
      }
      return { ...result, data };
    },
    (error: unknown) => {
      stream.end();
      throw error;
    },
  );
}

/**
 * Whether a query's or a mutation's result is a stream tRPC streams: an async iterable, or an
 * observable, which tRPC takes to be any object with `subscribe` (a tRPC observable, or a minimal
 * one of another library, without `pipe`) and converts to a stream for `httpBatchStreamLink`.
 * Asked of every successful result of a verified call, so it is two property checks on an
 * ordinary object; one whose `subscribe` is not a method is data (tRPC could not stream it).
 */
const isStream = (data: unknown): boolean =>
  typeof data === 'object' && data !== null && (Symbol.asyncIterator in data || typeof (data as { subscribe?: unknown }).subscribe === 'function');

/**
 * `next`, the result of a query or a mutation through a step, with every stream tRPC would stream
 * of it ending with the principals of `state`, as a subscription's does (see
 * {@link endingWithCredentials}): the result itself when its resolver returned an async iterable
 * (which tRPC streams to `httpBatchStreamLink` and `createCaller` hands over) or an observable, and
 * the promises and async iterables among the values of a plain object it returned, which tRPC
 * streams too (and what each of them produces, as deep as tRPC streams). Any other result is
 * unchanged, for one `then` and a look at the data. Such a call has no `ctx.streamSignal`: whether
 * the resolver streams is known only once it returned.
 */
export function streamingWithCredentials(next: Promise<MiddlewareResult<any>>, state: SecurityState, opts: MiddlewareOptions<object>): Promise<MiddlewareResult<any>> {
  return next.then((result) => {
    if (!result.ok) return result;
    if (isStream(result.data)) return streamedResult(result, state, opts);
    if (!hasStreamedEntries(result.data)) return result;
    return { ...result, data: guardedEntries(result.data, watchOf(state, opts.signal), { request: opts.signal, call: opts.getRawInput }) };
  });
}

/** A query's or mutation's successful `result` whose data is a stream, with that stream ending with the principals of `state`. */
function streamedResult(result: MiddlewareResult<any> & { ok: true }, state: SecurityState, opts: MiddlewareOptions<object>): MiddlewareResult<any> {
  const inner = guardOf(result.data);
  // Guarded by an inner step of this very call (its input reader and signal: the chain's end made
  // for it), which saw every principal and scope this step sees, as a subscription's inner step does.
  if (inner !== undefined && inner.call === opts.getRawInput && inner.request === opts.signal) return result;
  const stream = streamEnd(opts.signal, opts.getRawInput);
  if (inner !== undefined) {
    // Another call's stream (a nested `createCaller`'s, returned as this one's): it ends with that
    // call's credentials, and with this call's too.
    endsWith(stream, inner);
    return { ...result, data: streamGuardedAgain(result.data, watchOf(state, stream.request), stream) };
  }
  return { ...result, data: streamWithLifetime(result.data, watchOf(state, stream.request), stream) };
}

/** Ends `stream` when `other` ends. */
function endsWith(stream: StreamEnd, other: StreamEnd): void {
  if (other.signal.aborted) stream.end(other.signal.reason);
  else other.signal.addEventListener('abort', () => stream.end(other.signal.reason), { once: true });
}
