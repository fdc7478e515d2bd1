import { accumulateScopes } from './accumulate-scopes.js';
import { assertGrantedScopes } from './assert-granted-scopes.js';
import type { GrantedScopes } from './granted-scopes.js';
import type { MiddlewareOptions, MiddlewareResult, ScopesOf } from './middleware-types.js';
import { SECURITY, type SecurityDeclaration } from './security-declaration.js';
import type { SecurityScopes } from './security-scopes.js';

/**
 * A middleware that adds `$Required` to `ctx.securityScopes`. `$Ctx` is the context of the
 * procedure it is used on (inferred from the `.use()` call), so chained scopes accumulate as a union.
 *
 * @example
 * ```ts
 * const items = authed.use(auth.requireScopes('items')); // ctx.securityScopes: SecurityScopes<'me' | 'items'>
 * ```
 */
export interface ScopesMiddleware<$Required extends string, $Ctx = unknown> {
  (
    opts: MiddlewareOptions<$Ctx>,
  ): Promise<MiddlewareResult<{ securityScopes: SecurityScopes<ScopesOf<$Ctx> | $Required> }>>;
  readonly [SECURITY]: SecurityDeclaration;
}

/**
 * Builds the scopes middleware of a reader (`reader.requireScopes`); `scopes` are already checked.
 * When a resolver earlier in the chain put `ctx.grantedScopes`, the accumulated scopes are
 * enforced here too, so a scope added after the resolver is never silently skipped.
 */
export function scopesMiddleware<$Required extends string, $Ctx>(
  declaration: Omit<SecurityDeclaration, 'optional'>,
): ScopesMiddleware<$Required, $Ctx> {
  const accumulate = accumulateScopes(declaration.scopes);
  const middleware = (opts: MiddlewareOptions<{ securityScopes?: SecurityScopes; grantedScopes?: GrantedScopes }>) => {
    const securityScopes = accumulate(opts.ctx.securityScopes);
    if (opts.ctx.grantedScopes !== undefined) assertGrantedScopes(securityScopes, opts.ctx.grantedScopes);
    return opts.next({ ctx: { securityScopes } });
  };
  return Object.assign(middleware, { [SECURITY]: Object.freeze({ ...declaration }) }) as never;
}
