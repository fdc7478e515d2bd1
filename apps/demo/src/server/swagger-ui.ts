import { createReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * One OpenAPI document Swagger UI offers in its top bar.
 *
 * @example
 * ```ts
 * const spec: SwaggerUiSpec = { name: 'Demo API', url: '/openapi.json' };
 * ```
 */
export interface SwaggerUiSpec {
  name: string;
  url: string;
}

// swagger-ui-dist ships the built UI; it is served from node_modules, so no CDN is involved.
const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

// Only these files are served: a fixed list rules out path traversal by construction.
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'oauth2-redirect.html': 'text/html; charset=utf-8',
  'oauth2-redirect.js': 'text/javascript; charset=utf-8',
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
};

const indexHtml = (title: string) => `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>${title}</title>
    <link rel="stylesheet" type="text/css" href="./swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="./index.css" />
    <link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="./swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="./swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="./swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

const initializer = (specs: readonly SwaggerUiSpec[], clientId: string | undefined) => `window.onload = function () {
  window.ui = SwaggerUIBundle({
    urls: ${JSON.stringify(specs)},
    'urls.primaryName': ${JSON.stringify(specs[0]?.name ?? '')},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    oauth2RedirectUrl: window.location.origin + '/docs/oauth2-redirect.html',
  });${clientId === undefined ? '' : `\n  window.ui.initOAuth({ clientId: ${JSON.stringify(clientId)} });`}
};
`;

/**
 * The headers of every response under the docs prefix: scripts and styles from this origin only
 * (Swagger UI sets inline styles and draws icons as `data:` images), no framing (clickjacking),
 * no content sniffing, and no referrer sent on.
 *
 * @example
 * ```ts
 * res.writeHead(200, { ...DOCS_SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' });
 * ```
 */
export const DOCS_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
});

const send = (res: ServerResponse, status: number, type: string, body: string) => {
  res.writeHead(status, { ...DOCS_SECURITY_HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
};

/**
 * How Swagger UI is served.
 *
 * @example
 * ```ts
 * const options: SwaggerUiOptions = { prefix: '/docs/', specs: [{ name: 'API', url: '/openapi.json' }], clientId: 'swagger-ui' };
 * ```
 */
export interface SwaggerUiOptions {
  /** Where the UI lives, e.g. `/docs/`. */
  prefix: `/${string}/`;
  /** The documents of its top bar; the first is shown first. */
  specs: readonly SwaggerUiSpec[];
  /** The page title. */
  title?: string;
  /** The OAuth2 client id the Authorize dialog starts with. */
  clientId?: string;
}

/**
 * Serves Swagger UI under `options.prefix`. Answers `true` when it handled the request,
 * `false` when the path is not one of its files.
 *
 * @example
 * ```ts
 * const docs = swaggerUi({ prefix: '/docs/', specs: [{ name: 'Demo API', url: '/openapi.json' }] });
 * http.createServer((req, res) => docs(req, res, new URL(req.url!, 'http://x').pathname) || notFound(res));
 * ```
 */
export function swaggerUi({
  prefix,
  specs,
  title = 'Swagger UI',
  clientId,
}: SwaggerUiOptions): (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean {
  const html = indexHtml(title);
  const script = initializer(specs, clientId);
  return (req, res, pathname) => {
    if (!pathname.startsWith(prefix)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      send(res, 405, 'text/plain; charset=utf-8', 'Method Not Allowed\n');
      return true;
    }
    const file = pathname.slice(prefix.length);
    if (file === '' || file === 'index.html') send(res, 200, 'text/html; charset=utf-8', html);
    else if (file === 'swagger-initializer.js') send(res, 200, 'text/javascript; charset=utf-8', script);
    else if (Object.hasOwn(ASSETS, file)) {
      res.writeHead(200, { ...DOCS_SECURITY_HEADERS, 'content-type': ASSETS[file], 'cache-control': 'public, max-age=3600' });
      if (req.method === 'HEAD') res.end();
      else createReadStream(join(DIST, file)).on('error', () => res.destroy()).pipe(res);
    } else return false;
    return true;
  };
}
