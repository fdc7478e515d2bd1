/**
 * Scope hierarchies: a reader may declare that a broader scope implies narrower ones
 * (`items:write` implies `items:read`), so that a token granting the broader scope satisfies a
 * requirement of the narrower one. See docs/contract.md#scope-hierarchy.
 * @module
 */
import type { GrantedScopes } from './security-scopes.js';

/**
 * What each declared scope implies: scope → the declared scopes it grants as well. Keys and
 * values are the reader's declared scopes.
 *
 * @typeParam TScope - the reader's declared scopes.
 * @example
 * ```ts
 * const implies: ScopeImplications<'items:read' | 'items:write' | 'admin'> = {
 *   'items:write': ['items:read'],
 *   admin: ['items:write'],
 * };
 * ```
 */
export type ScopeImplications<TScope extends string> = { readonly [K in TScope]?: readonly Exclude<TScope, K>[] };

/**
 * The scopes a grant of `TGranted` satisfies under `TImplies`, transitively (up to a depth of
 * eight implications): itself and everything it implies.
 *
 * @example
 * ```ts
 * type S = ImpliedScopes<{ admin: ['items:write']; 'items:write': ['items:read'] }, 'admin'>; // 'admin' | 'items:write' | 'items:read'
 * ```
 */
export type ImpliedScopes<TImplies, TGranted extends string, TDepth extends unknown[] = []> = TDepth['length'] extends 8
  ? TGranted
  :
      | TGranted
      | (TGranted extends keyof TImplies
          ? TImplies[TGranted] extends readonly (infer $Implied extends string)[]
            ? ImpliedScopes<TImplies, $Implied, [...TDepth, unknown]>
            : never
          : never);

/**
 * Builds the expansion of grants under `implies`: each scope → the scopes it satisfies,
 * transitively (cycles are harmless: each scope is visited once). Every key and every implied
 * scope must be declared, or a `TypeError` is thrown when the reader is created.
 */
export function scopeExpansion(
  implies: Readonly<Partial<Record<string, readonly string[]>>> | undefined,
  declared: readonly string[],
): ((granted: GrantedScopes) => GrantedScopes) | undefined {
  if (implies === undefined) return undefined;
  if (typeof implies !== 'object' || implies === null) throw new TypeError('implies must be an object: scope → the scopes it implies');
  const direct = new Map<string, readonly string[]>();
  for (const [scope, implied] of Object.entries(implies)) {
    if (implied === undefined) continue;
    if (!declared.includes(scope)) throw new TypeError(`implies: ${JSON.stringify(scope)} is not a declared scope`);
    if (!Array.isArray(implied)) throw new TypeError(`implies: ${JSON.stringify(scope)} must name an array of scopes`);
    for (const narrower of implied) {
      if (typeof narrower !== 'string' || !declared.includes(narrower)) {
        throw new TypeError(`implies: ${JSON.stringify(scope)} implies ${JSON.stringify(narrower)}, which is not a declared scope`);
      }
    }
    direct.set(scope, implied);
  }
  if (direct.size === 0) return undefined;
  const closure = new Map<string, ReadonlySet<string>>();
  for (const scope of direct.keys()) {
    const reached = new Set<string>([scope]);
    const pending = [scope];
    while (pending.length > 0) {
      for (const narrower of direct.get(pending.pop()!) ?? []) {
        if (!reached.has(narrower)) {
          reached.add(narrower);
          pending.push(narrower);
        }
      }
    }
    closure.set(scope, reached);
  }
  return (granted) => {
    const expanded = new Set<string>(granted);
    for (const scope of granted) for (const implied of closure.get(scope) ?? []) expanded.add(implied);
    return expanded;
  };
}
