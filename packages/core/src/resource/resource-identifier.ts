/**
 * Resource and issuer identifiers (RFC 8707 §2, RFC 8414 §2, RFC 9728 §1.2): absolute `https:`
 * URLs without a fragment (`http:` on a loopback host, for development and tests), compared in
 * one canonical form so that what a server advertises and what its verifiers accept can be
 * checked against each other.
 * @module
 */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * `value` as a URL, when it is an absolute `https:` URL, or `http:` on a loopback host (for
 * development and tests); else a `TypeError` naming `option`. What a server advertises and the
 * authorization servers a verifier fetches from (a key set, an introspection endpoint) are held
 * to this one rule.
 *
 * @example
 * ```ts
 * secureUrl('https://issuer.example/jwks', 'jwksUrl').href; // 'https://issuer.example/jwks'
 * secureUrl('http://issuer.example/jwks', 'jwksUrl');       // throws TypeError: jwksUrl must be an https: URL …
 * ```
 */
export function secureUrl(value: string | URL, option: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${option} must be an absolute URL, not ${JSON.stringify(String(value))}`);
  }
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) return url;
  throw new TypeError(`${option} must be an https: URL (http: on a loopback host only), not ${JSON.stringify(String(value))}`);
}

/**
 * The canonical form of a resource or issuer identifier: the URL as WHATWG parses it (scheme and
 * host lower-cased, default port dropped, dot segments resolved), without the lone `/` path a
 * bare origin gets (`https://API.example:443` → `https://api.example`). A value that is not an
 * absolute `https:` URL (or `http:` on a loopback host), or that has a fragment, throws a `TypeError`
 * naming `option`.
 *
 * @example
 * ```ts
 * canonicalResource('HTTPS://Api.Example:443/', 'resource'); // 'https://api.example'
 * canonicalResource('https://api.example/mcp', 'resource'); // 'https://api.example/mcp'
 * ```
 */
export function canonicalResource(value: string | URL, option: string): string {
  const url = secureUrl(value, option);
  if (url.hash !== '' || String(value).includes('#')) throw new TypeError(`${option} must not have a fragment`);
  if (url.username !== '' || url.password !== '') throw new TypeError(`${option} must not carry credentials`);
  const href = url.href;
  return url.pathname === '/' && url.search === '' ? href.slice(0, -1) : href;
}
