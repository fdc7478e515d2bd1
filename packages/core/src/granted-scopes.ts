/**
 * The scopes a credential grants, as a resolver puts them on `ctx.grantedScopes`.
 *
 * @example
 * ```ts
 * const granted: GrantedScopes = new Set(payload.scope.split(' '));
 * ```
 */
export type GrantedScopes = ReadonlySet<string> | readonly string[];
