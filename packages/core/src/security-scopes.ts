/**
 * The scopes every security middleware in a procedure's chain has required so far, in
 * declaration order and without duplicates (FastAPI's `SecurityScopes`).
 *
 * @typeParam $Scope - the union of scope names accumulated by the chain.
 * @example
 * ```ts
 * const items = authed.use(auth.requireScopes('items')).query(({ ctx }) => {
 *   ctx.securityScopes.scopes;   // readonly ('me' | 'items')[]
 *   ctx.securityScopes.scopeStr; // 'me items'
 * });
 * ```
 */
export interface SecurityScopes<$Scope extends string = string> {
  readonly scopes: readonly $Scope[];
  /** `scopes` joined by one space, ready for a `scope` parameter or a `WWW-Authenticate` challenge. */
  readonly scopeStr: string;
}
