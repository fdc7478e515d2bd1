import { BEARER_SCHEME, NOT_AUTHENTICATED, SCHEME_SEPARATOR } from './grammar.js';
import { OAuth2Error } from './oauth2-error.js';

/**
 * The token of a `Bearer` `Authorization` value, or `null` when the value is missing, blank or
 * of another scheme. The scheme ends at the first space and is compared case-insensitively; the
 * rest, trimmed, is the token (`"Bearer"` alone gives `""`: validating tokens is the resolver's job).
 *
 * @example
 * ```ts
 * bearerToken('bearer  abc'); // 'abc'
 * bearerToken('Basic abc');   // null
 * ```
 */
export function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const end = authorization.indexOf(SCHEME_SEPARATOR);
  const scheme = end === -1 ? authorization : authorization.slice(0, end);
  if (scheme.length !== BEARER_SCHEME.length || scheme.toLowerCase() !== BEARER_SCHEME) return null;
  return end === -1 ? '' : authorization.slice(end + 1).trim();
}

/**
 * The bearer readers' default not-authenticated error: 401 with `WWW-Authenticate: Bearer`.
 *
 * @example
 * ```ts
 * oauth2PasswordBearer({ tokenUrl: 'token', makeNotAuthenticatedError: bearerNotAuthenticatedError });
 * ```
 */
export function bearerNotAuthenticatedError() {
  return new OAuth2Error({
    code: 'ERR_NOT_AUTHENTICATED',
    status: 401,
    message: NOT_AUTHENTICATED,
    headers: { 'WWW-Authenticate': 'Bearer' },
  }).toTRPCError();
}
