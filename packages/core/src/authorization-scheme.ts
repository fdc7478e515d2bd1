/**
 * The `Authorization` value's two parts, as FastAPI's `get_authorization_scheme_param` splits
 * them. See docs/contract.md#reading-the-authorization-header.
 * @module
 */

/** Separates the scheme from the credential in an `Authorization` value: the first space. */
const SCHEME_SEPARATOR = ' ';

/**
 * Splits an `Authorization` value at its first space into the scheme and the rest, trimmed.
 * A value with no space is all scheme (`param` is `''`); a missing value gives `['', '']`.
 */
export function authorizationSchemeParam(authorization: string | undefined): readonly [scheme: string, param: string] {
  if (authorization === undefined) return ['', ''];
  const end = authorization.indexOf(SCHEME_SEPARATOR);
  return end === -1 ? [authorization, ''] : [authorization.slice(0, end), authorization.slice(end + 1).trim()];
}

/** Whether `scheme` is `expected` (given in lower case), compared case-insensitively. */
export function isScheme(scheme: string, expected: string): boolean {
  return scheme.length === expected.length && scheme.toLowerCase() === expected;
}
