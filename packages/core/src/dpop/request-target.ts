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
