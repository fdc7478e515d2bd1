import type { GrantedScopes } from './granted-scopes.js';
import { insufficientScopeError } from './insufficient-scope-error.js';
import type { SecurityScopes } from './security-scopes.js';

/**
 * Throws RFC 6750 `insufficient_scope` (403) unless `granted` holds every scope in `required`.
 * Resolvers call it once they know what the credential grants; `requireScopes` calls it for the
 * scopes it adds whenever `ctx.grantedScopes` is already set.
 *
 * @example
 * ```ts
 * const granted = new Set(payload.scope.split(' '));
 * assertGrantedScopes(ctx.securityScopes, granted);
 * ```
 */
export function assertGrantedScopes(required: SecurityScopes, granted: GrantedScopes): void {
  const has = 'has' in granted ? (scope: string) => granted.has(scope) : (scope: string) => granted.includes(scope);
  for (const scope of required.scopes) {
    if (!has(scope)) throw insufficientScopeError(required.scopes);
  }
}
