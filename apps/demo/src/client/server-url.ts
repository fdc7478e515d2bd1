import { secureUrl } from '@trpc-oauth2/core/protocol';
import * as oauth from 'oauth4webapi';

/**
 * Whether a URL's hostname (as WHATWG `URL` spells it) names this machine: `localhost`, an IPv4
 * address in 127.0.0.0/8, or `[::1]`. `URL` has already turned `127.1` or `0x7f.1` into
 * `127.0.0.1`. The rule is `@trpc-oauth2/core`'s (`secureUrl`: http on a loopback host only),
 * the one the server holds its own URLs to, so the client and the server count the same hosts.
 *
 * @example
 * ```ts
 * isLoopbackHost(new URL('http://127.0.0.1:3000').hostname); // true
 * isLoopbackHost(new URL('http://demo.example').hostname);   // false
 * ```
 */
export function isLoopbackHost(hostname: string): boolean {
  const href = `http://${hostname}/`;
  // A hostname as `URL` spells it reads back as itself: anything else (another spelling, a port,
  // a path, credentials) is not one.
  if (!URL.canParse(href) || new URL(href).hostname !== hostname) return false;
  try {
    secureUrl(href, 'host');
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether the client may talk to `url` at all: `https:`, or `http:` on a loopback host only (the
 * demo's own `http://127.0.0.1:3000`). Plain http to any other host would send passwords, codes
 * and tokens over the network in the clear.
 *
 * @example
 * ```ts
 * isSecureServerUrl(new URL('http://127.0.0.1:3000')); // true
 * isSecureServerUrl(new URL('http://demo.example'));   // false
 * ```
 */
export function isSecureServerUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/**
 * What is wrong with `given` as the server the client talks to, or `null` when nothing is: it is
 * an absolute `http(s):` URL (else `invalid`), without credentials, `user:password@` (else
 * `credentials`), and `https:` unless on a loopback host (else `insecure`).
 *
 * @example
 * ```ts
 * serverUrlProblem('http://127.0.0.1:3000'); // null
 * serverUrlProblem('http://demo.example');   // 'insecure'
 * ```
 */
export function serverUrlProblem(given: string): 'invalid' | 'credentials' | 'insecure' | null {
  if (!URL.canParse(given)) return 'invalid';
  const url = new URL(given);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'invalid';
  if (url.username !== '' || url.password !== '') return 'credentials';
  return isSecureServerUrl(url) ? null : 'insecure';
}

/**
 * The oauth4webapi option that lets it send a request over plain http: only when `url` is `http:`
 * on a loopback host (the demo's default), otherwise nothing, so oauth4webapi refuses plain http.
 *
 * @example
 * ```ts
 * await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...httpOnLoopback(issuer) });
 * ```
 */
export function httpOnLoopback(url: URL | string): { [oauth.allowInsecureRequests]?: true } {
  const parsed = new URL(url);
  return parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname) ? { [oauth.allowInsecureRequests]: true } : {};
}
