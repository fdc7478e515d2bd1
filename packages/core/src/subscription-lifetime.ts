/**
 * What a security step does for a subscription: once the resolver returned its stream, the stream
 * is made to end with the credentials that opened it (every principal the chain verified): at
 * the earliest `expiresAt`, and, for a reader created with `recheckInterval`, as soon as its
 * verifier refuses the token again or stops granting the chain's scopes. See
 * docs/contract.md#subscriptions.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { insufficientScopeError } from './errors.js';
import type { Principal } from './readers/principal.js';
import type { Consultation, SecurityState } from './readers/security-state.js';
import { grantsAll, type MiddlewareResult } from './security-scopes.js';
import { isGuardedStream, streamWithLifetime } from './stream-lifetime.js';

/** How a verified reader renews its principal while a subscription it opened streams. */
export interface PrincipalRenewal {
  /** The error a stream ends with when the token expires. */
  readonly makeExpiredError: () => TRPCError;
  /** Verifies the token again, bypassing caches (`fresh: true`); rejects with the reader's refusal. */
  readonly recheck?: ((signal: AbortSignal) => Promise<Principal>) | undefined;
  /** Milliseconds between two rechecks (the reader's `recheckInterval`). */
  readonly recheckInterval?: number | undefined;
}

type Verified = Consultation & { readonly principal: Principal; readonly renewal?: PrincipalRenewal | undefined };

const earliest = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));

/**
 * `next`, with the stream of a successful subscription ending with the principals of `state`.
 * A stream an inner step of the chain guarded already (it saw every principal and scope this
 * step sees, and more) is left alone.
 */
export function endingWithCredentials(
  next: Promise<MiddlewareResult<any>>,
  state: SecurityState,
  signal: AbortSignal | undefined,
): Promise<MiddlewareResult<any>> {
  return next.then((result) => {
    if (!result.ok || isGuardedStream(result.data)) return result;
    const verified = state.consulted.filter((consultation): consultation is Verified => consultation.principal !== null);
    if (verified.length === 0) return result;
    const required = state.scopes.scopes;
    let expiresAt: number | undefined;
    let recheckInterval: number | undefined;
    for (const { principal, renewal } of verified) {
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
              if (required.length > 0 && !grantsAll(principal.scopes, required)) throw insufficientScopeError(required);
              renewedExpiry = earliest(renewedExpiry, principal.expiresAt);
            }
            return renewedExpiry;
          };
    const first = verified[0]!;
    const makeExpiredError = first.renewal?.makeExpiredError ?? (() => first.makeNotAuthenticatedError());
    return { ...result, data: streamWithLifetime(result.data, { expiresAt, makeExpiredError, recheck, recheckInterval }, signal) };
  });
}
