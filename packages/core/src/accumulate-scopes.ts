import type { SecurityScopes } from './security-scopes.js';

/** The scopes of a chain that has required none. */
export const NO_SCOPES: SecurityScopes<never> = Object.freeze({ scopes: Object.freeze([]), scopeStr: '' });

/**
 * Returns a function that adds `required` to a chain's scopes, keeping order and dropping
 * duplicates. A chain's scopes are the same object on every request, so each result is
 * remembered per input object: after the first request this costs one WeakMap lookup.
 *
 * @example
 * ```ts
 * const addItems = accumulateScopes(['items']);
 * addItems(NO_SCOPES).scopeStr; // 'items'
 * ```
 */
export function accumulateScopes(required: readonly string[]): (previous: SecurityScopes | undefined) => SecurityScopes {
  const memo = new WeakMap<SecurityScopes, SecurityScopes>();
  return (previous = NO_SCOPES) => {
    let next = memo.get(previous);
    if (next === undefined) {
      const scopes = Object.freeze([...new Set([...previous.scopes, ...required])]);
      next = scopes.length === previous.scopes.length ? previous : Object.freeze({ scopes, scopeStr: scopes.join(' ') });
      memo.set(previous, next);
    }
    return next;
  };
}
