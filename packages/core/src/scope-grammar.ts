/**
 * RFC 6749 §3.3's scope grammar, the one copy every package checks scopes against: scope names
 * a reader declares, and the scopes a verifier reads from a token.
 * @module
 */

/** `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
/** `scope = scope-token *( SP scope-token )`: one space between tokens, none around them. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+(?: [\x21\x23-\x5B\x5D-\x7E]+)*$/;

/**
 * Whether `value` is one RFC 6749 §3.3 scope token: at least one character, none of them a
 * space, a `"` or a `\`, nor outside printable ASCII.
 *
 * @example
 * ```ts
 * isScopeToken('items:read'); // true
 * isScopeToken('two words');  // false
 * ```
 */
export function isScopeToken(value: unknown): value is string {
  return typeof value === 'string' && SCOPE_TOKEN.test(value);
}

/**
 * The scopes of an RFC 6749 §3.3 `scope` value, strictly: tokens separated by exactly one space
 * (`''` has none). A value that breaks the grammar (a doubled or trailing space, a forbidden
 * character) is `undefined`, for the caller to refuse. Forms are read more leniently (any
 * whitespace separates), as FastAPI does.
 *
 * @example
 * ```ts
 * parseScope('me items'); // ['me', 'items']
 * parseScope('me  items'); // undefined
 * ```
 */
export function parseScope(scope: string): string[] | undefined {
  if (scope === '') return [];
  return SCOPE.test(scope) ? scope.split(' ') : undefined;
}
