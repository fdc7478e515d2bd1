/**
 * The URL a client used, when an HTTP layer handed the procedure a request at another URL (a REST
 * handler routes on the path below its base path, a proxy strips a path prefix): DPoP proofs and
 * verifiers must see the former. The public origin and path prefix an application declares are
 * checked here, once, for readers and the token endpoint alike.
 * @module
 */

/**
 * The key under which a rewritten request carries the URL the client used. A global symbol, so
 * that two copies of this package understand each other.
 *
 * @example
 * ```ts
 * Object.defineProperty(rewritten, REQUEST_URL, { value: original.url });
 * ```
 */
export const REQUEST_URL: unique symbol = Symbol.for('trpc-oauth2.request-url') as never;

/**
 * The URL (or request target) of `req` as the client sent it: what {@link REQUEST_URL} says, else
 * `req.originalUrl` (see {@link mountedTargetOf}), else `req.url`.
 */
export function clientUrlOf(req: { readonly url?: unknown } | undefined): string | undefined {
  const original = (req as { [REQUEST_URL]?: unknown } | undefined)?.[REQUEST_URL];
  if (typeof original === 'string') return original;
  const mounted = mountedTargetOf(req);
  if (mounted !== undefined) return mounted;
  return typeof req?.url === 'string' ? req.url : undefined;
}

/**
 * The request target a Node request came with, when the router that handed it on mounted its
 * handler below a path: Express and Connect (`app.use('/trpc', handler)`) cut the mount path off
 * `req.url` (`/me` for `/trpc/me`) and keep the target the client sent as `req.originalUrl`. A
 * DPoP proof names that one (RFC 9449 §4.3: the URL of the request the client made), and so does
 * the URL a verifier sees (docs/contract.md#dpop). `undefined` for any other request.
 *
 * @example
 * ```ts
 * mountedTargetOf(req); // '/trpc/me' where req.url is '/me'
 * ```
 */
export function mountedTargetOf(req: { readonly url?: unknown } | undefined): string | undefined {
  const original = (req as { originalUrl?: unknown } | undefined)?.originalUrl;
  return typeof original === 'string' && original !== '' ? original : undefined;
}

/**
 * `pathname` (and `search`) under `base` (an origin, or an origin and a path prefix such as
 * `https://api.example/svc`), the path kept a path whatever it starts with: a path
 * `//other.example/me` resolved against the origin would name another host, and a DPoP proof
 * for that host would then match (docs/contract.md#dpop).
 *
 * @example
 * ```ts
 * urlAtBase('https://api.example', '//other.example/me'); // 'https://api.example//other.example/me'
 * urlAtBase('https://api.example/svc', '/items'); // 'https://api.example/svc/items'
 * ```
 */
export function urlAtBase(base: string, pathname: string, search = ''): string {
  const url = new URL(base);
  // A base is written without a trailing slash (see pathPrefixOf), so its path is `/` or a prefix;
  // a path without its leading slash (the opaque path of a target `a:b`) gets one, after the prefix.
  const path = pathname.startsWith('/') ? pathname : `/${pathname}`;
  url.pathname = url.pathname === '/' ? path : `${url.pathname}${path}`;
  url.search = search;
  return url.href;
}

/**
 * A `pathPrefix` option checked where it is configured: the path a proxy in front of the
 * application strips off before the request reaches it (`/svc` when the client calls
 * `https://api.example/svc/items` and the application sees `/items`), which the URL the client
 * used, and so a DPoP proof's `htu`, still has. Normalized as a URL path (dot segments resolved,
 * percent-encodings as the URL parser writes them), without its trailing slashes; `''` for none
 * (absent, `''` or `/`). Anything but a path (`//host`, a query, a fragment, a backslash, a
 * relative path) throws a `TypeError` naming `option`.
 *
 * @example
 * ```ts
 * pathPrefixOf('/svc/', 'pathPrefix'); // '/svc'
 * pathPrefixOf(undefined, 'pathPrefix'); // ''
 * pathPrefixOf('svc', 'pathPrefix'); // throws TypeError: pathPrefix must be a path such as /api …
 * ```
 */
export function pathPrefixOf(prefix: unknown, option: string): string {
  if (prefix === undefined || prefix === '' || prefix === '/') return '';
  // `//host/…` would be read as another host, `\` as `/` by the URL parser: both refused, not guessed at.
  const refused = () => new TypeError(`${option} must be a path such as /api (no host, query or fragment), not ${JSON.stringify(String(prefix))}`);
  if (typeof prefix !== 'string' || !prefix.startsWith('/') || prefix.startsWith('//') || /[?#\\]/.test(prefix)) throw refused();
  const { host, pathname } = new URL(prefix, 'http://prefix.invalid');
  // The URL parser drops tabs and newlines first: `/\t/host` is read as `//host`, another host.
  if (host !== 'prefix.invalid') throw refused();
  // Without its trailing slashes, so that the path after it brings the one separator (`/svc//` too).
  const normalized = pathname.replace(/\/+$/, '');
  // `/..//x` resolves to `//x`: a path that starts like a host is refused however it was spelled.
  if (normalized.startsWith('//')) throw refused();
  return normalized;
}

/** A scheme and an authority, then at most one `/`: no path segment, not even one that resolves away. */
const AUTHORITY_ONLY = /^[a-z][a-z0-9+.-]*:\/\/[^/\\?#]*\/?$/i;

/**
 * `origin` checked where it is configured: an `http:` or `https:` origin, nothing else in it (no
 * userinfo, path, query or fragment), in any spelling of it (host case, a default port, a
 * trailing slash): its normalized form. A path is refused rather than dropped: the path a proxy
 * strips goes in the `pathPrefix` option beside it, and one taken silently off the origin would
 * have every proof of a client behind that proxy refused.
 */
export function publicOrigin(origin: string, option: string): string {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    throw new TypeError(`${option} must be an absolute URL such as https://api.example.com`);
  }
  // The text itself ends at the authority: `https://api.example/svc/../` parses to the origin, but
  // it names a path its writer meant to be there, which only pathPrefix can put there.
  const originOnly =
    url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '' && !/[?#@]/.test(origin) && AUTHORITY_ONLY.test(origin.trim());
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !originOnly) {
    throw new TypeError(`${option} must be an origin only (scheme, host and port), such as https://api.example.com; a path a proxy strips goes in pathPrefix`);
  }
  return url.origin;
}
