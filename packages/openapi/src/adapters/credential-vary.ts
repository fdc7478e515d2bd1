/**
 * The `Vary` every answer of a procedure carries, and those written in its place (a 404, a body
 * refusal): what a procedure answers depends on the credentials the request carries, so a cache
 * must not answer one request with what it stored for another that carried other credentials, or
 * none. An answer the same for every credential (a 405 by the method alone, the resource
 * metadata) lists neither. See docs/contract.md#body-limits.
 * @module
 */

/**
 * The request headers an answer depends on beyond the URL: the access token (`Authorization`)
 * and, for a DPoP-bound one, its proof (`DPoP`, RFC 9449 §4.1).
 */
export const CREDENTIAL_HEADERS: readonly string[] = ['Authorization', 'DPoP'];

/**
 * `headers` (an answer's, as a `responseMeta` returns them) with {@link CREDENTIAL_HEADERS} in
 * `Vary` (RFC 9110 §12.5.5), beside what it names already (in any case, under a `vary` in any
 * case), unless it is `*`. The value is a list, one name an item: tRPC's adapters append each
 * item to their own `Vary` (`trpc-accept, accept`), where a string would replace it.
 *
 * @example
 * ```ts
 * withCredentialVary({ vary: 'Origin' }); // { vary: ['Origin', 'Authorization', 'DPoP'] }
 * ```
 */
export function withCredentialVary(headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  let given: string[] | undefined;
  for (const name in headers) {
    if (name.length !== 4 || name.toLowerCase() !== 'vary') continue;
    const value = headers[name];
    if (value !== undefined) (given ??= []).push(...(typeof value === 'string' ? [value] : value));
    delete headers[name];
  }
  // Most answers carry no `Vary` of the application's: theirs is the credential headers alone,
  // a fresh list (an adapter may keep it), with no set to build on every answer.
  if (given === undefined) {
    headers.vary = [...CREDENTIAL_HEADERS];
    return headers;
  }
  const named = new Set(given.flatMap((value) => value.split(',')).map((item) => item.trim().toLowerCase()));
  if (named.has('*')) headers.vary = given;
  else headers.vary = [...given, ...CREDENTIAL_HEADERS.filter((name) => !named.has(name.toLowerCase()))];
  return headers;
}
