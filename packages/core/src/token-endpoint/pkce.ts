/**
 * PKCE (RFC 7636): checking the `code_verifier` of an authorization code grant against the
 * `code_challenge` of its authorization request. See docs/contract.md#token-responses.
 * @module
 */

/** RFC 7636 §4.1: code-verifier = 43*128unreserved; unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~". */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** RFC 7636 §4.2: BASE64URL(SHA256(ASCII(code_verifier))), 43 characters without padding. */
const S256_CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/**
 * Whether `codeVerifier` is a well-formed RFC 7636 code verifier: 43 to 128 characters, each a
 * letter, a digit or one of `-` `.` `_` `~`.
 *
 * @example
 * ```ts
 * isCodeVerifier('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'); // true
 * isCodeVerifier('short'); // false
 * ```
 */
export function isCodeVerifier(codeVerifier: string): boolean {
  return CODE_VERIFIER.test(codeVerifier);
}

/**
 * The S256 code challenge of a code verifier: `BASE64URL(SHA256(code_verifier))` (RFC 7636 §4.2).
 *
 * @example
 * ```ts
 * await s256CodeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'); // 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
 * ```
 */
export async function s256CodeChallenge(codeVerifier: string): Promise<string> {
  // Web Crypto: the same on Node, Deno, Bun and edge runtimes.
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(codeVerifier)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Compares two strings of equal length in time that does not depend on where they differ. */
function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/**
 * Checks a token request's `code_verifier` against the S256 `code_challenge` the authorization
 * request carried (RFC 7636 §4.6): `true` only for a well-formed verifier (43–128 unreserved
 * characters) whose challenge equals `codeChallenge`, compared in constant time. A missing
 * verifier, a malformed one or a mismatch is `false`: answer it with
 * `tokenError('invalid_grant', …)`.
 *
 * When no challenge was stored (`null` or `undefined`), a request that sends a `code_verifier`
 * anyway is `false` (the PKCE downgrade of RFC 9700 §4.8.2: a stolen code of a request made
 * without PKCE redeemed as if it had one); a request without one is `false` too, unless
 * `{ required: false }` says the authorization endpoint lets clients go without PKCE.
 *
 * @example
 * ```ts
 * if (!(await verifyCodeVerifier(form.code_verifier, stored.codeChallenge))) throw tokenError('invalid_grant', 'PKCE verification failed');
 * ```
 */
export async function verifyCodeVerifier(
  codeVerifier: string | null | undefined,
  codeChallenge: string | null | undefined,
  options: { required?: boolean } = {},
): Promise<boolean> {
  if (codeChallenge === null || codeChallenge === undefined) {
    // Nothing to check against: only a request that sends nothing, where PKCE is optional, passes.
    return options.required === false && (codeVerifier === null || codeVerifier === undefined);
  }
  if (typeof codeVerifier !== 'string' || !CODE_VERIFIER.test(codeVerifier) || !S256_CHALLENGE.test(codeChallenge)) return false;
  return constantTimeEqual(await s256CodeChallenge(codeVerifier), codeChallenge);
}
