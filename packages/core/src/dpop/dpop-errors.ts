/**
 * How a resource server refuses a DPoP request (RFC 9449 §7.1, §9): the `DPoP` challenge and one
 * factory per refusal, each an {@link OAuth2Error} with a stable code. A token endpoint answers
 * the same refusals as RFC 6749 §5.2 errors instead (see `tokenError`). See docs/contract.md#dpop.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import {
  OAuth2Error,
  bearerChallenge,
  checkStepUpParams,
  credentialInUrlRefusal,
  insufficientUserAuthenticationError,
  isQuotable,
  refusalDescription,
  resourceMetadataValue,
  scopeParam,
  type AuthenticationRequirement,
  type ChallengeOptions,
} from '../errors.js';

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
 * A server nonce as `DPoP-Nonce` carries it (RFC 9449 §8.1); anything else throws a `TypeError`.
 *
 * @example
 * ```ts
 * res.setHeader(DPOP_NONCE_HEADER, dpopNonceValue(await nonces.current()));
 * ```
 */
export function dpopNonceValue(nonce: string): string {
  // RFC 9449 §8.1: nonce = 1*NQCHAR, NQCHAR = %x21 / %x23-5B / %x5D-7E.
  if (!isQuotable(nonce)) throw new TypeError('a DPoP nonce must be 1*NQCHAR (RFC 9449 §8.1): no spaces, quotes, backslashes or characters beyond ASCII');
  return nonce;
}

/** RFC 6750 §3: error = 1*( %x20-21 / %x23-5B / %x5D-7E ). */
const ERROR_CODE = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * What a `DPoP` challenge says: the algorithms the server accepts and, for a refusal, the error;
 * for `insufficient_scope`, the scopes needed; and where the resource's metadata is.
 *
 * @example
 * ```ts
 * const options: DPoPChallengeOptions = { algorithms: ['ES256'], error: 'invalid_dpop_proof', description: 'The DPoP proof is too old' };
 * ```
 */
export interface DPoPChallengeOptions extends ChallengeOptions {
  readonly algorithms: readonly string[];
  readonly error?: string;
  readonly description?: string;
  /** The scopes an `insufficient_scope` refusal names (RFC 6750 §3). */
  readonly scope?: readonly string[];
  /** The `acr` values an `insufficient_user_authentication` refusal names (RFC 9470 §3). */
  readonly acrValues?: readonly string[] | undefined;
  /** The `max_age` an `insufficient_user_authentication` refusal names (RFC 9470 §3). */
  readonly maxAge?: number | undefined;
}

/** The options of a DPoP refusal's factory: the algorithms, and where the resource's metadata is. */
type DPoPRefusalOptions = { readonly algorithms: readonly string[] } & ChallengeOptions;

/**
 * The value of `algs` (RFC 9449 §7.1): the algorithms, space-delimited, in one quoted string. The
 * readers' come from the pinned list, but the factories take any strings: a name with a space, a
 * quote or a backslash (or none at all) would split the list or rewrite the header, so it throws.
 */
function algsValue(algorithms: readonly string[]): string {
  if (!Array.isArray(algorithms) || algorithms.length === 0 || !algorithms.every(isQuotable)) {
    throw new TypeError('algorithms must name at least one algorithm, each 1*NQCHAR: no spaces, quotes, backslashes or characters beyond ASCII');
  }
  return algorithms.join(' ');
}

/**
 * The `DPoP` challenge of `WWW-Authenticate` (RFC 9449 §7.1): `DPoP algs="ES256 EdDSA"`, with
 * `error`, `error_description` and `scope` first when it answers a refusal, and
 * `resource_metadata` (RFC 9728 §5.1, which allows it in any scheme's challenge) before `algs`.
 * The description is kept to the characters RFC 6750 allows in it; a metadata URL, a scope or an
 * algorithm a quoted string cannot carry throws a `TypeError`, since it would rewrite the header.
 *
 * @example
 * ```ts
 * dpopChallenge({ algorithms: ['ES256'] }); // 'DPoP algs="ES256"'
 * dpopChallenge({ algorithms: ['ES256'], error: 'invalid_token' }); // 'DPoP error="invalid_token", algs="ES256"'
 * ```
 */
export function dpopChallenge(options: DPoPChallengeOptions): string {
  const parts: string[] = [];
  if (options.error !== undefined && (typeof options.error !== 'string' || !ERROR_CODE.test(options.error))) throw new TypeError('error must be an error code');
  checkStepUpParams(options.acrValues, options.maxAge);
  if (options.error !== undefined) parts.push(`error="${options.error}"`);
  const description = refusalDescription(options.description);
  if (description !== undefined) parts.push(`error_description="${description}"`);
  const scope = options.scope === undefined ? undefined : scopeParam(options.scope);
  if (scope !== undefined) parts.push(`scope="${scope}"`);
  // Checked by the refusal's factory (insufficientUserAuthenticationError's checks).
  if (options.acrValues !== undefined) parts.push(`acr_values="${options.acrValues.join(' ')}"`);
  if (options.maxAge !== undefined) parts.push(`max_age="${options.maxAge}"`);
  const metadata = resourceMetadataValue(options);
  if (metadata !== undefined) parts.push(`resource_metadata="${metadata}"`);
  parts.push(`algs="${algsValue(options.algorithms)}"`);
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
export function invalidDPoPProofError(description: string, options: DPoPRefusalOptions): TRPCError {
  return dpopRefusal({ code: 'ERR_INVALID_DPOP_PROOF', error: 'invalid_dpop_proof', fallback: 'The DPoP proof is invalid' }, description, options);
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
export function dpopInvalidTokenError(description: string, options: DPoPRefusalOptions): TRPCError {
  return dpopRefusal({ code: 'ERR_INVALID_TOKEN', error: 'invalid_token', fallback: 'Could not validate credentials' }, description, options);
}

/**
 * RFC 6750 §3.1 `insufficient_scope` in the `DPoP` scheme (RFC 9449 §7.1 carries RFC 6750's
 * error codes in it), for a token sent with DPoP: 403 with
 * `WWW-Authenticate: DPoP error="insufficient_scope", scope="…", resource_metadata="…", algs="…"`,
 * stable code `ERR_INSUFFICIENT_SCOPE`. A Bearer challenge would tell the client to use a scheme
 * a DPoP-only resource refuses.
 *
 * @example
 * ```ts
 * throw dpopInsufficientScopeError(['items:write'], { algorithms: ['ES256'] });
 * ```
 */
export function dpopInsufficientScopeError(requiredScopes: readonly string[], options: DPoPRefusalOptions): TRPCError {
  const challenge = dpopChallenge({ ...options, error: 'insufficient_scope', scope: requiredScopes });
  return new OAuth2Error({
    code: 'ERR_INSUFFICIENT_SCOPE',
    status: 403,
    error: 'insufficient_scope',
    message: 'Not enough permissions',
    headers: { 'WWW-Authenticate': challenge },
  }).toTRPCError();
}

/**
 * The not-authenticated error of a reader that accepts DPoP: 401 with
 * `WWW-Authenticate: Bearer, DPoP algs="…"` (`'allowed'`) or `DPoP algs="…"` (`'required'`);
 * given `resourceMetadata`, each challenge names it (`Bearer resource_metadata="…", DPoP
 * resource_metadata="…", algs="…"`), RFC 9728 §5.1; given `scope`, each names the scopes a request
 * needs (`Bearer scope="me", DPoP scope="me", algs="…"`, RFC 6750 §3), as
 * `bearerNotAuthenticatedError` does, so that a client asks for them at once. A scope that is not
 * a scope-token throws a `TypeError`.
 *
 * @example
 * ```ts
 * dpopNotAuthenticatedError('allowed', ['ES256']); // WWW-Authenticate: Bearer, DPoP algs="ES256"
 * dpopNotAuthenticatedError('allowed', ['ES256'], { scope: ['me'] }); // Bearer scope="me", DPoP scope="me", algs="ES256"
 * ```
 */
export function dpopNotAuthenticatedError(
  mode: 'required' | 'allowed',
  algorithms: readonly string[],
  options?: ChallengeOptions & { readonly scope?: readonly string[] | undefined },
): TRPCError {
  return new OAuth2Error({
    code: 'ERR_NOT_AUTHENTICATED',
    status: 401,
    message: 'Not authenticated',
    headers: { 'WWW-Authenticate': inAcceptedSchemes(mode, algorithms, { scope: options?.scope }, options) },
  }).toTRPCError();
}

/**
 * `credentialInUrlError` for a reader that accepts DPoP: 400 `invalid_request`, stable code
 * `ERR_INVALID_REQUEST`, challenged in the schemes the reader reads, as its not-authenticated
 * error is: `Bearer error="invalid_request", DPoP error="invalid_request", algs="…"`
 * (`'allowed'`) or `DPoP error="invalid_request", algs="…"` (`'required'`), each naming
 * `resourceMetadata` when given. A Bearer challenge alone would send the client of a DPoP-only
 * resource to a scheme it refuses.
 *
 * @example
 * ```ts
 * oauth2PasswordBearer({ tokenUrl: 'token', verify, origin, dpop: { mode: 'required' }, makeCredentialInUrlError: () => dpopCredentialInUrlError('required', DPOP_ALGORITHMS) });
 * ```
 */
export function dpopCredentialInUrlError(mode: 'required' | 'allowed', algorithms: readonly string[], options?: ChallengeOptions): TRPCError {
  return credentialInUrlRefusal(inAcceptedSchemes(mode, algorithms, { error: 'invalid_request' }, options));
}

/**
 * The challenges of a refusal in every scheme a reader accepts: the Bearer one first (`'allowed'`),
 * then the DPoP one, each with the same `error`, `scope` and `resource_metadata`.
 */
function inAcceptedSchemes(
  mode: 'required' | 'allowed',
  algorithms: readonly string[],
  refusal: { readonly error?: string; readonly scope?: readonly string[] | undefined },
  options: ChallengeOptions | undefined,
): string {
  const { error, scope } = refusal;
  const metadata = options?.resourceMetadata === undefined ? {} : { resourceMetadata: options.resourceMetadata };
  const dpop = dpopChallenge({ algorithms, ...(error === undefined ? {} : { error }), ...(scope === undefined ? {} : { scope }), ...metadata });
  if (mode === 'required') return dpop;
  return `${bearerChallenge([['error', error], ['scope', scope === undefined ? undefined : scopeParam(scope)]], options)}, ${dpop}`;
}

/** What a nonce refusal says by default, and when its description has nothing left to say. */
export const NONCE_REQUIRED = 'Resource server requires nonce in DPoP proof';

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
export function useDPoPNonceError(nonce: string, options: DPoPRefusalOptions & { readonly description?: string }): TRPCError {
  // A description with nothing left to send is left out of the challenge; the message falls back.
  const safe = refusalDescription(options.description ?? NONCE_REQUIRED);
  return new OAuth2Error({
    code: 'ERR_USE_DPOP_NONCE',
    status: 401,
    error: 'use_dpop_nonce',
    message: safe ?? NONCE_REQUIRED,
    headers: {
      'WWW-Authenticate': dpopChallenge({ ...challengeOptions(options), error: 'use_dpop_nonce', ...(safe === undefined ? {} : { description: safe }) }),
      [DPOP_NONCE_HEADER]: dpopNonceValue(nonce),
    },
  }).toTRPCError();
}

/** A refusal of a DPoP request: 401, its error and description in the `DPoP` challenge. */
function dpopRefusal(
  refusal: { readonly code: 'ERR_INVALID_TOKEN' | 'ERR_INVALID_DPOP_PROOF'; readonly error: string; readonly fallback: string },
  description: string,
  options: DPoPRefusalOptions,
): TRPCError {
  const safe = refusalDescription(description);
  return new OAuth2Error({
    code: refusal.code,
    status: 401,
    error: refusal.error,
    message: safe ?? refusal.fallback,
    headers: { 'WWW-Authenticate': dpopChallenge({ ...challengeOptions(options), error: refusal.error, ...(safe === undefined ? {} : { description: safe }) }) },
  }).toTRPCError();
}

/** The algorithms and metadata URL of a factory's options, and nothing else a caller put in them. */
function challengeOptions(options: DPoPRefusalOptions): DPoPChallengeOptions {
  const { algorithms, resourceMetadata } = options;
  return resourceMetadata === undefined ? { algorithms } : { algorithms, resourceMetadata };
}

/**
 * RFC 9470 §3 `insufficient_user_authentication` on a DPoP request: 401 with
 * `WWW-Authenticate: DPoP error="insufficient_user_authentication", error_description="…", acr_values="…", max_age="…", algs="…"`,
 * stable code `ERR_INSUFFICIENT_USER_AUTHENTICATION`: the step-up refusal of a token sent with
 * DPoP, whose client a Bearer challenge would send to a scheme the resource refuses for it.
 * The requirement is checked as `insufficientUserAuthenticationError` checks it.
 *
 * @example
 * ```ts
 * throw dpopInsufficientUserAuthenticationError({ acrValues: ['urn:example:mfa'] }, { algorithms: ['ES256'] });
 * ```
 */
export function dpopInsufficientUserAuthenticationError(
  requirement: AuthenticationRequirement,
  options: DPoPRefusalOptions & { readonly description?: string | undefined },
): TRPCError {
  // The Bearer refusal checks the requirement and cleans the description: the two say the same.
  const { message } = insufficientUserAuthenticationError(requirement, options.description === undefined ? {} : { description: options.description });
  const { acrValues, maxAge } = requirement;
  // A given description with nothing left to send is left out of the challenge, as the Bearer one leaves it.
  const description = options.description === undefined ? message : refusalDescription(options.description);
  const challenge = dpopChallenge({ ...options, error: 'insufficient_user_authentication', description, acrValues, maxAge });
  return new OAuth2Error({
    code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION',
    status: 401,
    error: 'insufficient_user_authentication',
    message,
    headers: { 'WWW-Authenticate': challenge },
  }).toTRPCError();
}
