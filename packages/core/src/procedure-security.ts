import type { OAuth2SecurityScheme } from './oauth-flows.js';
import { SECURITY, type SecurityDeclaration } from './security-declaration.js';

/**
 * The security of one procedure, merged from every security middleware in its chain.
 *
 * @example
 * ```ts
 * const security: ProcedureSecurity = {
 *   schemes: { OAuth2PasswordBearer: auth.securityScheme },
 *   requirement: { OAuth2PasswordBearer: ['me', 'items'] },
 *   optional: false,
 * };
 * ```
 */
export interface ProcedureSecurity {
  /** Every scheme the chain uses, by scheme name. */
  schemes: Record<string, OAuth2SecurityScheme>;
  /** One OpenAPI Security Requirement: scheme name → the scopes the chain accumulated for it. */
  requirement: Record<string, string[]>;
  /** `true` when every reader in the chain has `autoError: false`: authentication is optional. */
  optional: boolean;
}

/**
 * Reads a built procedure's (or procedure builder's) security from its middleware chain.
 * Returns `undefined` for a procedure that uses no reader and requires no scope.
 *
 * @example
 * ```ts
 * const router = t.router({ me: authed.use(auth.requireScopes('me')).query(() => 1) });
 * getProcedureSecurity(router.me)?.requirement; // { OAuth2PasswordBearer: ['me'] }
 * ```
 */
export function getProcedureSecurity(procedure: { _def: object }): ProcedureSecurity | undefined {
  const middlewares = (procedure._def as { middlewares?: readonly unknown[] }).middlewares ?? [];
  let security: ProcedureSecurity | undefined;
  let readers = 0;
  let optionalReaders = 0;
  for (const middleware of middlewares) {
    const declaration = (middleware as { [SECURITY]?: SecurityDeclaration } | null)?.[SECURITY];
    if (declaration === undefined) continue;
    security ??= { schemes: {}, requirement: {}, optional: false };
    security.schemes[declaration.schemeName] = declaration.scheme;
    const scopes = (security.requirement[declaration.schemeName] ??= []);
    for (const scope of declaration.scopes) if (!scopes.includes(scope)) scopes.push(scope);
    if (declaration.optional !== undefined) {
      readers++;
      if (declaration.optional) optionalReaders++;
    }
  }
  if (security) security.optional = readers > 0 && readers === optionalReaders;
  return security;
}
