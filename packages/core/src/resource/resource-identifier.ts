/**
 * Resource and issuer identifiers (RFC 8707 §2, RFC 8414 §2, RFC 9728 §1.2): absolute `https:`
 * URLs without a fragment (`http:` on a loopback host, for development and tests). A resource is
 * written in one canonical form, so that what a server advertises and what its verifiers accept
 * can be checked against each other; an issuer is kept exactly as the authorization server spells
 * it, since clients and verifiers compare it character for character.
 * @module
 */

/** An IPv4 address as the WHATWG URL parser writes every spelling of one: four dotted decimals. */
const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * Whether a URL's hostname, as the WHATWG URL parser writes it, names this machine: `localhost`
 * (RFC 6761 §6.3), an IPv4 address in 127.0.0.0/8 (RFC 1122 §3.2.1.3) or `[::1]` (the parser has
 * already turned `127.1`, `0x7f.1`, `2130706433` into `127.0.0.1` and `[0:0:0:0:0:0:0:1]` into
 * `[::1]`). Not `0.0.0.0` or `[::]` (every interface, not this host), not an IPv4-mapped
 * `[::ffff:127.0.0.1]` (whether that reaches this machine depends on the stack), and not a name
 * under `localhost.` (resolvers need not keep it on this machine).
 */
function isLoopbackHostname(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const octets = IPV4.exec(hostname);
  return octets !== null && octets[1] === '127' && octets.slice(2).every((octet) => Number(octet) <= 255);
}

/**
 * `value` as a URL, when it is an absolute `https:` URL, or `http:` on a loopback host (for
 * development and tests: `localhost`, any of 127.0.0.0/8, `[::1]`), without credentials
 * (`user:password@`); else a `TypeError` naming `option`. What a server advertises and the
 * authorization servers a verifier fetches from (a key set, an introspection endpoint) are held
 * to this one rule: `fetch` refuses to request a URL with credentials, so a verifier built with
 * one would answer 503 to every token, forever.
 *
 * @example
 * ```ts
 * secureUrl('https://issuer.example/jwks', 'jwksUrl').href; // 'https://issuer.example/jwks'
 * secureUrl('http://127.0.0.2:3000/jwks', 'jwksUrl').host; // '127.0.0.2:3000'
 * secureUrl('http://issuer.example/jwks', 'jwksUrl');       // throws TypeError: jwksUrl must be an https: URL …
 * secureUrl('https://user:pw@issuer.example/jwks', 'jwksUrl'); // throws TypeError: jwksUrl must not carry credentials
 * ```
 */
export function secureUrl(value: string | URL, option: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${option} must be an absolute URL, not ${JSON.stringify(String(value))}`);
  }
  // Checked first, and the value not echoed: it holds a password.
  if (url.username !== '' || url.password !== '') throw new TypeError(`${option} must not carry credentials`);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname))) return url;
  throw new TypeError(`${option} must be an https: URL (http: on a loopback host only), not ${JSON.stringify(String(value))}`);
}

/**
 * The canonical form of a resource or issuer identifier: the URL as WHATWG parses it (scheme and
 * host lower-cased, default port dropped, dot segments resolved), without the lone `/` path a
 * bare origin gets (`https://API.example:443` → `https://api.example`; an empty query is kept:
 * `https://api.example?` → `https://api.example/?`). A value that is not an
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
  const href = url.href;
  // Only a lone `/` that ends the URL is dropped: an empty query (`https://api.example?`) has
  // `search` `''` too, but its href ends with `?`, and cutting that off would leave the `/`, a
  // form that is not its own canonical form.
  return url.pathname === '/' && href.endsWith('/') ? href.slice(0, -1) : href;
}

/**
 * An authorization server's issuer identifier (RFC 8414 §2), checked and kept exactly as given:
 * an absolute `https:` URL (`http:` on a loopback host) without query, fragment or credentials.
 * It is never rewritten, because it is compared character for character: a client with the
 * `issuer` of the server's own metadata (RFC 8414 §3.3), a verifier with each token's `iss`. So
 * `https://tenant.example/` and `https://tenant.example` are two issuers, and a server whose
 * identifier ends in `/` (as many hosted ones do) is advertised with it.
 *
 * @example
 * ```ts
 * issuerIdentifier('https://tenant.example/', 'issuer'); // 'https://tenant.example/'
 * issuerIdentifier('https://as.example/?tenant=1', 'issuer'); // throws TypeError: issuer must not have a query …
 * ```
 */
export function issuerIdentifier(value: string | URL, option: string): string {
  const text = typeof value === 'string' ? value : value.href;
  // The URL parser drops surrounding spaces and control characters: the text itself must not hold them.
  if (/[\s\x00-\x1f\x7f]/.test(text)) throw new TypeError(`${option} must not contain whitespace or control characters`);
  const url = secureUrl(text, option);
  if (url.hash !== '' || text.includes('#')) throw new TypeError(`${option} must not have a fragment`);
  if (url.search !== '' || text.includes('?')) throw new TypeError(`${option} must not have a query (RFC 8414 §2)`);
  return text;
}
