import type { TRPCError } from '@trpc/server';
import { OAuth2Error } from './oauth2-error.js';

/**
 * RFC 6750 §3.1 `insufficient_scope`: 403 with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`, naming every scope the
 * procedure requires.
 *
 * @example
 * ```ts
 * if (!granted.has('items')) throw insufficientScopeError(['me', 'items']);
 * ```
 */
export function insufficientScopeError(requiredScopes: readonly string[]): TRPCError {
  const scope = requiredScopes.join(' ');
  return new OAuth2Error({
    code: 'ERR_INSUFFICIENT_SCOPE',
    status: 403,
    error: 'insufficient_scope',
    message: 'Not enough permissions',
    // Scope names are scope-tokens (checked at definition), so they never need escaping here.
    headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
  }).toTRPCError();
}
