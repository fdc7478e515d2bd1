/**
 * The challenge table of docs/contract.md#challenges: every `WWW-Authenticate` a resource server
 * answers with, from the factory that builds it, with and without `resource_metadata`.
 */
import type { TRPCError } from '@trpc/server';
import {
  bearerNotAuthenticatedError,
  credentialInUrlError,
  insufficientScopeError,
  insufficientUserAuthenticationError,
  invalidTokenError,
  type ChallengeOptions,
} from '../../src/errors-entry.js';
import { dpopCredentialInUrlError, dpopInvalidTokenError, dpopNotAuthenticatedError, invalidDPoPProofError, useDPoPNonceError } from '../../src/dpop/index.js';
import { dpopInsufficientScopeError } from '../../src/dpop/dpop-errors.js';

export const METADATA_URL = 'https://api.example/.well-known/oauth-protected-resource/mcp';

export interface ChallengeCase {
  name: string;
  make: (options?: ChallengeOptions) => TRPCError;
  status: 400 | 401 | 403;
  code: string;
  /** The challenge without `resource_metadata`; with it, `, resource_metadata="…"` follows (or ` resource_metadata="…"` after a bare `Bearer`). */
  challenge: string;
  /** The challenge with `resource_metadata` at `url`, where it does not simply follow (a `DPoP` challenge ends with `algs`). */
  withMetadata?: (url: string) => string;
}

/** The DPoP rows' algorithms, and their `algs` parameter. */
const ALGORITHMS = ['ES256', 'EdDSA'];
const ALGS = 'algs="ES256 EdDSA"';

export const CHALLENGE_TABLE: readonly ChallengeCase[] = [
  { name: 'no token', make: (o) => bearerNotAuthenticatedError(o), status: 401, code: 'ERR_NOT_AUTHENTICATED', challenge: 'Bearer' },
  { name: 'a bad token', make: (o) => invalidTokenError(undefined, o), status: 401, code: 'ERR_INVALID_TOKEN', challenge: 'Bearer error="invalid_token"' },
  {
    name: 'an expired token',
    make: (o) => invalidTokenError('The access token expired', o),
    status: 401,
    code: 'ERR_INVALID_TOKEN',
    challenge: 'Bearer error="invalid_token", error_description="The access token expired"',
  },
  {
    name: 'a missing scope',
    make: (o) => insufficientScopeError(['items:read', 'items:write'], o),
    status: 403,
    code: 'ERR_INSUFFICIENT_SCOPE',
    challenge: 'Bearer error="insufficient_scope", scope="items:read items:write"',
  },
  {
    name: 'a step-up to an acr',
    make: (o) => insufficientUserAuthenticationError({ acrValues: ['urn:example:mfa', 'urn:example:hwk'] }, o),
    status: 401,
    code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION',
    challenge:
      'Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="urn:example:mfa urn:example:hwk"',
  },
  {
    name: 'a step-up to a recent login',
    make: (o) => insufficientUserAuthenticationError({ maxAge: 300 }, o),
    status: 401,
    code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION',
    challenge: 'Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", max_age="300"',
  },
  {
    name: 'a step-up to both',
    make: (o) => insufficientUserAuthenticationError({ acrValues: ['urn:example:mfa'], maxAge: 0 }, { ...o, description: 'Log in again with a second factor' }),
    status: 401,
    code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION',
    challenge: 'Bearer error="insufficient_user_authentication", error_description="Log in again with a second factor", acr_values="urn:example:mfa", max_age="0"',
  },
  // docs/contract.md#dpop: a reader that accepts DPoP answers in the DPoP scheme (RFC 9449 §7.1),
  // `resource_metadata` before `algs` (RFC 9728 §5.1 allows it in any scheme's challenge).
  {
    name: 'no token where DPoP is allowed',
    make: (o) => dpopNotAuthenticatedError('allowed', ALGORITHMS, o),
    status: 401,
    code: 'ERR_NOT_AUTHENTICATED',
    challenge: `Bearer, DPoP ${ALGS}`,
    withMetadata: (url) => `Bearer resource_metadata="${url}", DPoP resource_metadata="${url}", ${ALGS}`,
  },
  {
    name: 'no token where DPoP is required',
    make: (o) => dpopNotAuthenticatedError('required', ALGORITHMS, o),
    status: 401,
    code: 'ERR_NOT_AUTHENTICATED',
    challenge: `DPoP ${ALGS}`,
    withMetadata: (url) => `DPoP resource_metadata="${url}", ${ALGS}`,
  },
  {
    name: 'no token where DPoP is allowed, naming the scopes a request needs',
    make: (o) => dpopNotAuthenticatedError('allowed', ALGORITHMS, { ...o, scope: ['me', 'items'] }),
    status: 401,
    code: 'ERR_NOT_AUTHENTICATED',
    challenge: `Bearer scope="me items", DPoP scope="me items", ${ALGS}`,
    withMetadata: (url) => `Bearer scope="me items", resource_metadata="${url}", DPoP scope="me items", resource_metadata="${url}", ${ALGS}`,
  },
  {
    name: 'no token where DPoP is required, naming the scopes a request needs',
    make: (o) => dpopNotAuthenticatedError('required', ALGORITHMS, { ...o, scope: ['me'] }),
    status: 401,
    code: 'ERR_NOT_AUTHENTICATED',
    challenge: `DPoP scope="me", ${ALGS}`,
    withMetadata: (url) => `DPoP scope="me", resource_metadata="${url}", ${ALGS}`,
  },
  // docs/contract.md#subscriptions: a credential in the URL, in the schemes the reader accepts.
  { name: 'a credential in the URL', make: (o) => credentialInUrlError(o), status: 400, code: 'ERR_INVALID_REQUEST', challenge: 'Bearer error="invalid_request"' },
  {
    name: 'a credential in the URL where DPoP is allowed',
    make: (o) => dpopCredentialInUrlError('allowed', ALGORITHMS, o),
    status: 400,
    code: 'ERR_INVALID_REQUEST',
    challenge: `Bearer error="invalid_request", DPoP error="invalid_request", ${ALGS}`,
    withMetadata: (url) => `Bearer error="invalid_request", resource_metadata="${url}", DPoP error="invalid_request", resource_metadata="${url}", ${ALGS}`,
  },
  {
    name: 'a credential in the URL where DPoP is required',
    make: (o) => dpopCredentialInUrlError('required', ALGORITHMS, o),
    status: 400,
    code: 'ERR_INVALID_REQUEST',
    challenge: `DPoP error="invalid_request", ${ALGS}`,
    withMetadata: (url) => `DPoP error="invalid_request", resource_metadata="${url}", ${ALGS}`,
  },
  {
    name: 'a refused DPoP proof',
    make: (o) => invalidDPoPProofError('The DPoP proof is too old', { algorithms: ALGORITHMS, ...o }),
    status: 401,
    code: 'ERR_INVALID_DPOP_PROOF',
    challenge: `DPoP error="invalid_dpop_proof", error_description="The DPoP proof is too old", ${ALGS}`,
    withMetadata: (url) => `DPoP error="invalid_dpop_proof", error_description="The DPoP proof is too old", resource_metadata="${url}", ${ALGS}`,
  },
  {
    name: 'a DPoP nonce to use',
    make: (o) => useDPoPNonceError('a-nonce', { algorithms: ALGORITHMS, ...o }),
    status: 401,
    code: 'ERR_USE_DPOP_NONCE',
    challenge: `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", ${ALGS}`,
    withMetadata: (url) => `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", resource_metadata="${url}", ${ALGS}`,
  },
  {
    name: 'a token refused on a DPoP request',
    make: (o) => dpopInvalidTokenError('The access token expired', { algorithms: ALGORITHMS, ...o }),
    status: 401,
    code: 'ERR_INVALID_TOKEN',
    challenge: `DPoP error="invalid_token", error_description="The access token expired", ${ALGS}`,
    withMetadata: (url) => `DPoP error="invalid_token", error_description="The access token expired", resource_metadata="${url}", ${ALGS}`,
  },
  {
    name: 'a missing scope on a DPoP request',
    make: (o) => dpopInsufficientScopeError(['items:read', 'items:write'], { algorithms: ALGORITHMS, ...o }),
    status: 403,
    code: 'ERR_INSUFFICIENT_SCOPE',
    challenge: `DPoP error="insufficient_scope", scope="items:read items:write", ${ALGS}`,
    withMetadata: (url) => `DPoP error="insufficient_scope", scope="items:read items:write", resource_metadata="${url}", ${ALGS}`,
  },
];

/** The challenge of `row` with `resource_metadata` pointing at `url`. */
export function withResourceMetadata(row: ChallengeCase, url: string): string {
  if (row.withMetadata !== undefined) return row.withMetadata(url);
  return row.challenge === 'Bearer' ? `Bearer resource_metadata="${url}"` : `${row.challenge}, resource_metadata="${url}"`;
}
