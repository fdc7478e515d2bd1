/**
 * How a resource server refuses a DPoP request (RFC 9449 §7.1, §9): the `DPoP` challenge and one
 * factory per refusal, each an {@link OAuth2Error} with a stable code. A token endpoint answers
 * the same refusals as RFC 6749 §5.2 errors instead (see `tokenError`). See docs/contract.md#dpop.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { OAuth2Error, descriptionText } from '../errors.js';

/**
 * The response header a server's nonce travels in (RFC 9449 §8.1).
 *
 * @example
 * ```ts
 * res.setHeader(DPOP_NONCE_HEADER, await nonces.current());
 * ```
 */
export const DPOP_NONCE_HEADER = 'DPoP-Nonce';

/**
 * What a `DPoP` challenge says: the algorithms the server accepts and, for a refusal, the error.
 *
 * @example
 * ```ts
 * const options: DPoPChallengeOptions = { algorithms: ['ES256'], error: 'invalid_dpop_proof', description: 'The DPoP proof is too old' };
 * ```
 */
export interface DPoPChallengeOptions {
  readonly algorithms: readonly string[];
  readonly error?: string;
  readonly description?: string;
}

/**
 * The `DPoP` challenge of `WWW-Authenticate` (RFC 9449 §7.1): `DPoP algs="ES256 EdDSA"`, with
 * `error` and `error_description` first when it answers a refusal. The description is kept to
 * the characters RFC 6750 allows in it.
 *
 * @example
 * ```ts
 * dpopChallenge({ algorithms: ['ES256'] }); // 'DPoP algs="ES256"'
 * dpopChallenge({ algorithms: ['ES256'], error: 'invalid_token' }); // 'DPoP error="invalid_token", algs="ES256"'
 * ```
 */
export function dpopChallenge(options: DPoPChallengeOptions): string {
  const parts: string[] = [];
  if (options.error !== undefined) parts.push(`error="${options.error}"`);
  const description = options.description === undefined ? '' : descriptionText(options.description);
  if (description !== '') parts.push(`error_description="${description}"`);
  // Algorithm names are JWS names from a pinned list: never anything that needs escaping.
  parts.push(`algs="${options.algorithms.join(' ')}"`);
  return `DPoP ${parts.join(', ')}`;
}

/**
 * RFC 9449 §7.1 `invalid_dpop_proof` at a resource server: 401 with
 * `WWW-Authenticate: DPoP error="invalid_dpop_proof", error_description="…", algs="…"`, stable
 * code `ERR_INVALID_DPOP_PROOF`.
 *
 * @example
 * ```ts
 * throw invalidDPoPProofError('The DPoP proof was already used', { algorithms: ['ES256'] });
 * ```
 */
export function invalidDPoPProofError(description: string, options: { readonly algorithms: readonly string[] }): TRPCError {
  return dpopRefusal({ code: 'ERR_INVALID_DPOP_PROOF', error: 'invalid_dpop_proof', fallback: 'The DPoP proof is invalid' }, description, options.algorithms);
}

/**
 * RFC 9449 §7.1 `invalid_token` on a DPoP request (or for a DPoP-bound token sent as `Bearer`):
 * 401 with `WWW-Authenticate: DPoP error="invalid_token", error_description="…", algs="…"`,
 * stable code `ERR_INVALID_TOKEN`.
 *
 * @example
 * ```ts
 * throw dpopInvalidTokenError('The access token expired', { algorithms: ['ES256'] });
 * ```
 */
export function dpopInvalidTokenError(description: string, options: { readonly algorithms: readonly string[] }): TRPCError {
  return dpopRefusal({ code: 'ERR_INVALID_TOKEN', error: 'invalid_token', fallback: 'Could not validate credentials' }, description, options.algorithms);
}

/**
 * The not-authenticated error of a reader that accepts DPoP: 401 with
 * `WWW-Authenticate: Bearer, DPoP algs="…"` (`'allowed'`) or `DPoP algs="…"` (`'required'`).
 *
 * @example
 * ```ts
 * dpopNotAuthenticatedError('allowed', ['ES256']); // WWW-Authenticate: Bearer, DPoP algs="ES256"
 * ```
 */
export function dpopNotAuthenticatedError(mode: 'required' | 'allowed', algorithms: readonly string[]): TRPCError {
  const dpop = dpopChallenge({ algorithms });
  return new OAuth2Error({
    code: 'ERR_NOT_AUTHENTICATED',
    status: 401,
    message: 'Not authenticated',
    headers: { 'WWW-Authenticate': mode === 'allowed' ? `Bearer, ${dpop}` : dpop },
  }).toTRPCError();
}

/**
 * RFC 9449 §9 `use_dpop_nonce` at a resource server: 401 with
 * `WWW-Authenticate: DPoP error="use_dpop_nonce", …` and the nonce to use in `DPoP-Nonce`,
 * stable code `ERR_USE_DPOP_NONCE`.
 *
 * @example
 * ```ts
 * throw useDPoPNonceError(await nonces.current(), { algorithms: ['ES256'] });
 * ```
 */
export function useDPoPNonceError(
  nonce: string,
  options: { readonly algorithms: readonly string[]; readonly description?: string },
): TRPCError {
  const safe = descriptionText(options.description ?? 'Resource server requires nonce in DPoP proof');
  return new OAuth2Error({
    code: 'ERR_USE_DPOP_NONCE',
    status: 401,
    error: 'use_dpop_nonce',
    message: safe,
    headers: {
      'WWW-Authenticate': dpopChallenge({ algorithms: options.algorithms, error: 'use_dpop_nonce', description: safe }),
      [DPOP_NONCE_HEADER]: nonce,
    },
  }).toTRPCError();
}

/** A refusal of a DPoP request: 401, its error and description in the `DPoP` challenge. */
function dpopRefusal(
  refusal: { readonly code: 'ERR_INVALID_TOKEN' | 'ERR_INVALID_DPOP_PROOF'; readonly error: string; readonly fallback: string },
  description: string,
  algorithms: readonly string[],
): TRPCError {
  const safe = descriptionText(description);
  return new OAuth2Error({
    code: refusal.code,
    status: 401,
    error: refusal.error,
    message: safe || refusal.fallback,
    headers: { 'WWW-Authenticate': dpopChallenge({ algorithms, error: refusal.error, description: safe }) },
  }).toTRPCError();
}
