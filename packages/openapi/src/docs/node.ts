/**
 * `@trpc-oauth2/openapi/docs/node`: the docs of `@trpc-oauth2/openapi/docs` for `node:http`
 * (and Connect-style servers), and the files of the installed `swagger-ui-dist`.
 * @module
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DocsAssets } from './fetch.js';
import { docsRoutes, type DocsOptions } from './swagger-ui.js';
import { requestPathname } from '../utils/base-path.js';

export type { DocsDocument, DocsOptions } from './swagger-ui.js';

/**
 * The folder of the installed `swagger-ui-dist`, with a clear error when it is missing. Resolved
 * from this module, or from the working directory when a bundler has made it CommonJS (esbuild's
 * default output for `--platform=node`), where `import.meta.url` is empty.
 */
function swaggerUiDist(): string {
  const url = (import.meta as { url?: unknown }).url;
  const from = typeof url === 'string' && url !== '' ? url : join(process.cwd(), 'noop.js');
  try {
    return dirname(createRequire(from).resolve('swagger-ui-dist/package.json'));
  } catch (cause) {
    throw new Error('Serving the docs needs the package swagger-ui-dist: npm install swagger-ui-dist', { cause });
  }
}

/**
 * The files of the installed `swagger-ui-dist`, for `createDocsFetchHandler` on Node (a Fetch
 * server such as `@hono/node-server`). Throws at once when `swagger-ui-dist` is not installed.
 *
 * @example
 * ```ts
 * const docs = createDocsFetchHandler({ documents: [{ url: '/openapi.json', document }], assets: swaggerUiAssets() });
 * ```
 */
export function swaggerUiAssets(): DocsAssets {
  const dist = swaggerUiDist();
  return async (file) => new Uint8Array(await readFile(join(dist, file)));
}

/**
 * Serves the OpenAPI documents and Swagger UI from `node:http`, as `createDocsFetchHandler` does
 * for Fetch servers: the page at `/docs`, the files of the installed `swagger-ui-dist` (no CDN),
 * the OAuth2 redirect page, each document at its `url`, every answer with the safe headers
 * (CSP, `nosniff`, framing refused, `Referrer-Policy`), PKCE on, and the authorization kept across
 * reloads only when asked (`persistAuthorization: true`).
 * Returns `true` when it answered; for any other path it calls `next` when given (Connect,
 * Express), else returns `false` and leaves the response to you. Throws at once when
 * `swagger-ui-dist` is not installed.
 *
 * @example
 * ```ts
 * const docs = createDocsHandler({ documents: [{ url: '/openapi.json', document }] });
 * http.createServer((req, res) => docs(req, res) || rest(req, res)).listen(3000);
 * ```
 */
export function createDocsHandler(options: DocsOptions): (req: IncomingMessage, res: ServerResponse, next?: () => void) => boolean {
  const dist = swaggerUiDist();
  const route = docsRoutes(options);
  return (req, res, next) => {
    // A URL's pathname, as the fetch handler reads it: dot segments resolved, a target no URL is
    // built from is not a docs path.
    const pathname = requestPathname(req.url ?? '/');
    const answer = pathname === undefined ? undefined : route(req.method ?? 'GET', pathname);
    if (answer === undefined) {
      next?.();
      return false;
    }
    res.writeHead(answer.status, answer.headers);
    if (answer.body === null) res.end();
    else if ('text' in answer.body) res.end(answer.body.text);
    else createReadStream(join(dist, answer.body.asset)).on('error', () => res.destroy()).pipe(res);
    return true;
  };
}
