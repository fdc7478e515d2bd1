import { SCOPE_TOKEN } from './grammar.js';

/**
 * Refuses a scope name that breaks RFC 6749's scope-token grammar, or that the reader did not
 * declare. Called when procedures are defined, so a typo fails at start-up, not per request.
 *
 * @example
 * ```ts
 * assertScopeName('me', ['me', 'items']);  // ok
 * assertScopeName('a b', ['a b']);         // throws TypeError
 * ```
 */
export function assertScopeName(scope: unknown, declared: readonly string[] | undefined): asserts scope is string {
  if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope)) {
    throw new TypeError(`Invalid scope name ${JSON.stringify(scope)}: RFC 6749 §3.3 allows %x21 / %x23-5B / %x5D-7E, at least one character`);
  }
  if (declared !== undefined && !declared.includes(scope)) {
    throw new TypeError(`Scope ${JSON.stringify(scope)} is not declared by this reader (declared: ${declared.join(', ') || 'none'})`);
  }
}
