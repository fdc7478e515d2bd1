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

/** The context a scopes step reads. */
interface ScopesContext {
  securityScopes?: SecurityScopes;
  grantedScopes?: GrantedScopes;
}

/**
 * The scopes step shared by `requireScopes` and `withScopes`: adds `scopes` to the context's
 * and, when a resolver earlier in the chain put `ctx.grantedScopes`, enforces them all there, so
 * a scope added after the resolver is never silently skipped.
 */
export function requiredScopesOf(scopes: readonly string[]): (ctx: ScopesContext) => SecurityScopes {
  const accumulate = accumulateScopes(scopes);
  return (ctx) => {
    const securityScopes = accumulate(ctx.securityScopes);
    if (ctx.grantedScopes !== undefined) assertGrantedScopes(securityScopes, ctx.grantedScopes);
    return securityScopes;
  };
}

/** Builds the scopes middleware of a reader (`reader.requireScopes`); `scopes` are already checked. */
export function scopesMiddleware<$Required extends string, $Ctx>(
  declaration: Omit<SecurityDeclaration, 'optional'>,
): ScopesMiddleware<$Required, $Ctx> {
  const required = requiredScopesOf(declaration.scopes);
  const middleware = (opts: MiddlewareOptions<ScopesContext>) => opts.next({ ctx: { securityScopes: required(opts.ctx) } });
  return Object.assign(middleware, { [SECURITY]: Object.freeze({ ...declaration }) }) as never;
}
