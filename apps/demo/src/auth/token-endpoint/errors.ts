import { OAuth2Error } from '@trpc-oauth2/core';
import type { TRPCError } from '@trpc/server';

/**
 * RFC 6749 §5.2 error codes of the token endpoint.
 *
 * @example
 * ```ts
 * const code: TokenErrorCode = 'invalid_grant';
 * ```
 */
export type TokenErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

/**
 * A token endpoint refusal: 400, or 401 with `WWW-Authenticate: Basic` for `invalid_client`
 * (RFC 6749 §5.2: a 401 names the scheme the client can authenticate with;
 * the same value core's `readClientCredentials` sends for malformed Basic credentials). The stable
 * `code` is `ERR_` + the upper-cased RFC code, e.g. `ERR_INVALID_GRANT`.
 *
 * @example
 * ```ts
 * throw tokenError('invalid_grant', 'Incorrect username or password');
 * ```
 */
export function tokenError(error: TokenErrorCode, description: string): TRPCError {
  const client = error === 'invalid_client';
  return new OAuth2Error({
    code: `ERR_${error.toUpperCase() as Uppercase<TokenErrorCode>}`,
    status: client ? 401 : 400,
    error,
    message: description,
    ...(client ? { headers: { 'WWW-Authenticate': 'Basic' } } : {}),
  }).toTRPCError();
}
