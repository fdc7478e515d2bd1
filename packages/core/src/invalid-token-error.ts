import type { TRPCError } from '@trpc/server';
import { OAuth2Error } from './oauth2-error.js';

// RFC 6750 §3: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ); anything else is dropped.
const NOT_DESCRIPTION_CHAR = /[^\x20\x21\x23-\x5B\x5D-\x7E]/g;

/**
 * RFC 6750 §3.1 `invalid_token`: 401 with `WWW-Authenticate: Bearer error="invalid_token"`,
 * for a token that is malformed, expired, revoked or otherwise refused by the resolver.
 *
 * @example
 * ```ts
 * const payload = await jwtVerify(ctx.token, key).catch(() => {
 *   throw invalidTokenError('The access token expired');
 * });
 * ```
 */
export function invalidTokenError(description?: string): TRPCError {
  const safe = description?.replace(NOT_DESCRIPTION_CHAR, '');
  const challenge = safe ? `Bearer error="invalid_token", error_description="${safe}"` : 'Bearer error="invalid_token"';
  return new OAuth2Error({
    code: 'ERR_INVALID_TOKEN',
    status: 401,
    error: 'invalid_token',
    message: safe || 'Could not validate credentials',
    headers: { 'WWW-Authenticate': challenge },
  }).toTRPCError();
}
