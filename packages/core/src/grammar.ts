/**
 * RFC grammar the readers and parsers rely on, as named constants.
 * @module
 */

/**
 * The authentication scheme of RFC 6750 §2.1, compared case-insensitively.
 *
 * @example
 * ```ts
 * scheme.toLowerCase() === BEARER_SCHEME;
 * ```
 */
export const BEARER_SCHEME = 'bearer';

/**
 * RFC 6749 §3.3 `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`.
 *
 * @example
 * ```ts
 * SCOPE_TOKEN.test('items:read'); // true
 * SCOPE_TOKEN.test('a b');        // false
 * ```
 */
export const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/**
 * Separates the scheme from the credential in an `Authorization` value: the first space.
 *
 * @example
 * ```ts
 * 'Bearer abc'.indexOf(SCHEME_SEPARATOR); // 6
 * ```
 */
export const SCHEME_SEPARATOR = ' ';

/**
 * Separates scopes in a `scope` form field (RFC 6749 §3.3 says one space; any run of
 * whitespace is accepted, as FastAPI does).
 *
 * @example
 * ```ts
 * 'me  items'.split(SCOPE_SEPARATOR); // ['me', 'items']
 * ```
 */
export const SCOPE_SEPARATOR = /\s+/;

/**
 * The only `grant_type` the password request form accepts, as a whole-string pattern.
 *
 * @example
 * ```ts
 * PASSWORD_GRANT_TYPE.test('password'); // true
 * ```
 */
export const PASSWORD_GRANT_TYPE = /^password$/;

/**
 * The message every not-authenticated error carries by default.
 *
 * @example
 * ```ts
 * new TRPCError({ code: 'UNAUTHORIZED', message: NOT_AUTHENTICATED });
 * ```
 */
export const NOT_AUTHENTICATED = 'Not authenticated';
