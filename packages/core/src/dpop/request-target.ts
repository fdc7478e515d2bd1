/**
 * The method and URL a client used, as a DPoP proof's `htm` and `htu` must name them: the
 * request's method and path, under the origin the application says is its public one (behind a
 * proxy the `Host` header names the proxy's upstream, or whatever the client wrote).
 * @module
 */
import { clientUrlOf, urlAtBase } from '../request-url.js';

/**
 * The method and absolute URL of the request in `ctx.req` (a Fetch `Request` or a Node
 * `IncomingMessage`), its path put under `base` (the public origin, with the path prefix a proxy
 * strips when there is one); `undefined` when `ctx` has no request (a `createCaller` call).
 */
export function requestTarget(ctx: unknown, base: string): { method: string; url: string } | undefined {
  const req = (ctx as { req?: { method?: unknown; url?: unknown } } | null | undefined)?.req;
  const target = clientUrlOf(req);
  if (target === undefined || typeof req?.method !== 'string') return undefined;
  // A Fetch request's URL is absolute, a Node request's is the request target: keep only the
  // path, as the adapters route it, and keep it a path under the origin (`//host/…` included).
  let path: string;
  try {
    path = new URL(target, 'http://request.invalid').pathname;
  } catch {
    return undefined;
  }
  return { method: req.method, url: urlAtBase(base, path) };
}

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
  const originOnly = url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '' && !/[?#]/.test(origin);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !originOnly) {
    throw new TypeError(`${option} must be an origin only (scheme, host and port), such as https://api.example.com; a path a proxy strips goes in pathPrefix`);
  }
  return url.origin;
}
