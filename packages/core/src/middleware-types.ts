import type { TRPCMiddlewareFunction } from '@trpc/server';
import type { SecurityScopes } from './security-scopes.js';

/**
 * What a tRPC middleware resolves to when it adds `$ContextOut` to the context.
 *
 * @example
 * ```ts
 * type Result = MiddlewareResult<{ token: string }>;
 * ```
 */
export type MiddlewareResult<$ContextOut> = Awaited<
  ReturnType<TRPCMiddlewareFunction<any, any, any, $ContextOut, any>>
>;

/**
 * The part of tRPC's middleware options the security middlewares use. `$Ctx` is inferred from
 * the procedure they are `.use()`d on, which is how scopes accumulate in the types.
 *
 * @example
 * ```ts
 * const logToken = (opts: MiddlewareOptions<{ token: string }>) => opts.next({ ctx: {} });
 * ```
 */
export interface MiddlewareOptions<$Ctx> {
  ctx: $Ctx;
  next: (opts: { ctx: object }) => Promise<MiddlewareResult<any>>;
}

/**
 * The scope union a context has accumulated so far (`never` when none).
 *
 * @example
 * ```ts
 * type S = ScopesOf<{ securityScopes: SecurityScopes<'me'> }>; // 'me'
 * ```
 */
export type ScopesOf<$Ctx> = $Ctx extends { securityScopes: SecurityScopes<infer $Scope> } ? $Scope : never;
