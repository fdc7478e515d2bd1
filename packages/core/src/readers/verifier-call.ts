/**
 * How a reader asks its verifier: with the request the verifier sees, its answer checked to be a
 * principal, and every failure mapped to the reader's refusal; and, for a subscription, how the
 * principal is renewed while the stream runs. See docs/contract.md#verified-readers and
 * docs/contract.md#subscriptions.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { TOKEN_EXPIRED, verifierFailure } from '../errors.js';
import type { HeadersLike } from '../headers.js';
import type { MiddlewareOptions } from '../security-scopes.js';
import type { PrincipalRenewal } from '../subscription-lifetime.js';
import { isPrincipal, type Principal, type TokenVerifier, type VerifyRequest } from './principal.js';
import type { ReaderSettings } from './reader-settings.js';
import { verifyRequestOf } from './verify-request.js';

/** A reader's calls of its verifier. */
export interface VerifierCall {
  /** A verifier's answer (a cache's `peek` included) as a principal, or the reader's refusal. */
  principalOf(answer: unknown): Principal;
  /**
   * `then` of the verifier's principal for `token`, its failures made by `makeError` (default: the
   * reader's `makeInvalidTokenError`). One `then` and no extra awaits: this is the hot path too.
   */
  verify<$Result>(
    token: string,
    opts: MiddlewareOptions<object>,
    headers: HeadersLike | null | undefined,
    then: (principal: Principal) => $Result,
    request?: VerifyRequest,
    makeError?: (description: string) => TRPCError,
  ): Promise<$Result>;
  /**
   * How a subscription opened with `token` renews its principal: verified again, fresh, with the
   * opening call's request, and handed to `binding` with `jkt` (the key of the opening call's
   * proof, `undefined` for a token sent as Bearer), which throws when the renewed principal's key
   * binding is not the one the opening call accepted.
   */
  renewal(
    token: string,
    opts: MiddlewareOptions<object>,
    headers: HeadersLike | null | undefined,
    makeError?: (description: string) => TRPCError,
    binding?: RenewalBinding,
    jkt?: string,
  ): PrincipalRenewal;
}

/**
 * The binding check of a renewed principal: throws unless it is bound as the opening call's token
 * was (to the proof key `jkt`, or, without one, to nothing). The reader's own, made once: a call
 * hands it the key, so that a query or mutation, whose principal is never renewed, makes no closure.
 */
export type RenewalBinding = (principal: Principal, jkt: string | undefined, ctx: object) => void;

const anyBinding: RenewalBinding = () => undefined;

/** The calls of `verify` for a reader with `settings`. */
export function verifierCall(verify: TokenVerifier<Principal>, settings: ReaderSettings): VerifierCall {
  const { makeInvalidTokenError, makeTokenExpiredError, recheckInterval, origin, pathPrefix } = settings;
  const principalOf = (answer: unknown): Principal => {
    if (isPrincipal(answer)) return answer;
    throw verifierFailure(new TypeError('verify returned no principal (an object with `scopes`)'), makeInvalidTokenError);
  };
  const refuse = (error: unknown): never => {
    throw verifierFailure(error, makeInvalidTokenError);
  };
  const call = <$Result>(
    token: string,
    opts: MiddlewareOptions<object>,
    headers: HeadersLike | null | undefined,
    fresh: AbortSignal | undefined,
    then: (principal: Principal) => $Result,
    request: VerifyRequest = verifyRequestOf(opts, headers, origin, pathPrefix),
    makeError: (description: string) => TRPCError = makeInvalidTokenError,
  ): Promise<$Result> => {
    let pending: Promise<unknown>;
    const signal = fresh ?? opts.signal;
    try {
      pending = verify(token, fresh === undefined ? { signal, request, ctx: opts.ctx } : { signal, request, ctx: opts.ctx, fresh: true });
    } catch (error) {
      return Promise.reject(verifierFailure(error, makeError, signal));
    }
    return Promise.resolve(pending).then(
      (answer) => then(principalOf(answer)),
      makeError === makeInvalidTokenError && signal === undefined
        ? refuse
        : (error) => {
            throw verifierFailure(error, makeError, signal);
          },
    );
  };
  return {
    principalOf,
    verify: (token, opts, headers, then, request, makeError) => call(token, opts, headers, undefined, then, request, makeError),
    renewal: (token, opts, headers, makeError, binding = anyBinding, jkt) => ({
      makeExpiredError: makeTokenExpiredError ?? (() => (makeError ?? makeInvalidTokenError)(TOKEN_EXPIRED)),
      recheck:
        recheckInterval === undefined
          ? undefined
          : (signal) => call(token, opts, headers, signal, (principal) => (binding(principal, jkt, opts.ctx), principal), undefined, makeError),
      recheckInterval,
    }),
  };
}
