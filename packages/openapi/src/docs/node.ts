/**
 * `@trpc-oauth2/openapi/docs/node`: the docs of `@trpc-oauth2/openapi/docs` for `node:http`
 * (and Connect-style servers), and the files of the installed `swagger-ui-dist`.
 * @module
 */
import { open, readFile, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { pipeline } from 'node:stream';
import { dirname, join } from 'node:path';
import type { DocsAssets } from './fetch.js';
import { docsRoutes, isAsset, missingAssetHeaders, type DocsOptions } from './swagger-ui.js';
import { NOT_FOUND_BODY, requestPathname } from '../utils/base-path.js';

export type { DocsDocument, DocsOptions } from './swagger-ui.js';

const INTERNAL_ERROR_BODY = JSON.stringify({ message: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });

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
 * Whether a failure to open or read an asset means the file is not there: a release of
 * `swagger-ui-dist` without it, or a deployment that left it out. Anything else (no permission,
 * no descriptor left) is a fault of the server and stays one.
 */
const isMissing = (error: unknown) => ['ENOENT', 'ENOTDIR', 'EISDIR'].includes((error as { code?: unknown } | null)?.code as string);

/**
 * Opens one of the files of {@link SWAGGER_UI_ASSETS} in `dist`, or `null` when the name is not
 * one of them (so no name, `..` or a separator included, reaches the file system) or the file is
 * not there.
 */
async function openAsset(dist: string, file: string): Promise<FileHandle | null> {
  if (!isAsset(file)) return null;
  try {
    return await open(join(dist, file));
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/**
 * The files of the installed `swagger-ui-dist`, for `createDocsFetchHandler` on Node (a Fetch
 * server such as `@hono/node-server`): `null` (a 404) for a file that is not there, and for any
 * name not in `SWAGGER_UI_ASSETS`, which is never looked for on disk. Throws at once when
 * `swagger-ui-dist` is not installed.
 *
 * @example
 * ```ts
 * const docs = createDocsFetchHandler({ documents: [{ url: '/openapi.json', document }], assets: swaggerUiAssets() });
 * ```
 */
export function swaggerUiAssets(): DocsAssets {
  const dist = swaggerUiDist();
  return async (file) => {
    const handle = await openAsset(dist, file);
    if (handle === null) return null;
    try {
      return new Uint8Array(await readFile(handle));
    } finally {
      await handle.close();
    }
  };
}

/**
 * Serves the OpenAPI documents and Swagger UI from `node:http`, as `createDocsFetchHandler` does
 * for Fetch servers: the page at `/docs`, the files of the installed `swagger-ui-dist` (no CDN),
 * the OAuth2 redirect page, each document at its `url`, every answer with the safe headers
 * (CSP, `nosniff`, framing refused, `Referrer-Policy`), PKCE on, and the authorization kept across
 * reloads only when asked (`persistAuthorization: true`). A file of `swagger-ui-dist` that is not
 * there is a 404, with the safe headers.
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
    const { body } = answer;
    if (body === null || 'text' in body) {
      res.writeHead(answer.status, answer.headers).end(body?.text);
      return true;
    }
    // The file is opened before the head is written: one that is not there is a 404, not a 200
    // whose body never comes.
    openAsset(dist, body.asset).then(
      (handle) => {
        if (handle === null) return void res.writeHead(404, missingAssetHeaders(answer.headers)).end(body.head ? undefined : NOT_FOUND_BODY);
        res.writeHead(answer.status, answer.headers);
        if (body.head) return void handle.close().finally(() => res.end());
        // A client that goes away mid-file ends the read and closes the file: `pipe` would leave
        // both open until the handle is collected.
        pipeline(handle.createReadStream(), res, () => undefined);
      },
      () => void res.writeHead(500, { ...missingAssetHeaders(answer.headers) }).end(INTERNAL_ERROR_BODY),
    );
    return true;
  };
}
