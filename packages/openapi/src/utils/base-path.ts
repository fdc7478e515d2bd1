/**
 * Where a REST handler is mounted: the path prefix it strips before trpc-to-openapi matches an
 * operation's path (which it does from the root), so no one strips prefixes by hand.
 * @module
 */

/**
 * The path a handler mounted at `basePath` matches, for a request path: the rest of `pathname`
 * below `basePath` (`'/'` for `basePath` itself), or `undefined` when the request is not below
 * it. A prefix counts only at a segment boundary: `/api` holds `/api` and `/api/me`, never
 * `/apiary`. Without a `basePath` (or with `'/'`) every path is kept as it is.
 */
export function pathBelow(pathname: string, basePath: string | undefined): string | undefined {
  const base = basePath?.replace(/\/+$/, '') ?? '';
  if (base === '') return pathname;
  if (pathname === base) return '/';
  return pathname.startsWith(`${base}/`) ? pathname.slice(base.length) : undefined;
}

// A path of these characters, with one leading slash, is its own URL pathname: nothing in it is
// normalized (no dot segment, percent sign or backslash) and it cannot be read as a host (`//`).
const PLAIN_PATH = /^\/(?!\/)[\w\-~/]*$/;

/**
 * The pathname of a request target (`req.url` of a Node request, `/` when it has none) as a URL
 * built from it has it, so that routes and well-known paths are matched on what tRPC and
 * trpc-to-openapi read; `undefined` when no URL can be built from it. A plain path is taken as
 * it is, without building a URL (this runs on every request).
 *
 * @example
 * ```ts
 * requestPathname('/api/items?limit=2'); // '/api/items'
 * requestPathname('/api/./items/../me'); // '/api/me'
 * ```
 */
export function requestPathname(target: string): string | undefined {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  if (PLAIN_PATH.test(path)) return path;
  try {
    return new URL(target, 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}

/**
 * `url` (absolute) with its path moved below `basePath`, or `undefined` when it is not below it
 * (see {@link pathBelow}). Query and host are kept.
 */
export function urlBelow(url: string, basePath: string | undefined): string | undefined {
  if (basePath === undefined) return url;
  const parsed = new URL(url);
  const path = pathBelow(parsed.pathname, basePath);
  if (path === undefined) return undefined;
  parsed.pathname = path;
  return parsed.href;
}

/**
 * The JSON body trpc-to-openapi answers for a path it has no operation for, for one outside the
 * base path (and for a Swagger UI file the docs cannot find).
 */
export const NOT_FOUND_BODY = JSON.stringify({ message: 'Not found', code: 'NOT_FOUND' });
