/**
 * Served docs, whatever the server: the routes of Swagger UI (its page, its initializer, the
 * files of `swagger-ui-dist`, the OAuth2 redirect page) and of the OpenAPI documents, each answer
 * with the safe headers. The adapters (`createDocsFetchHandler`, `createDocsHandler`) only write
 * these answers. No Node API here.
 * @module
 */

/** One OpenAPI document served as JSON at `url`, offered in Swagger UI's top bar as `name`. */
export interface DocsDocument {
  /** The name in Swagger UI's top bar. Default: the document's `info.title`. */
  name?: string;
  /** Where the document is served, e.g. `/openapi.json`. */
  url: `/${string}`;
  /** The OpenAPI document (e.g. from `generateOAuth2OpenApiDocument`). */
  document: object;
}

/** The options of the docs handlers. */
export interface DocsOptions {
  /** The documents served and offered in the top bar; the first is shown first. */
  documents: readonly [DocsDocument, ...DocsDocument[]];
  /** Where Swagger UI lives: its page at `path` and `path/`, its files below. Default `/docs`. */
  path?: `/${string}`;
  /** The page title. Default: the first document's name. */
  title?: string;
  /** What the Authorize dialog starts with (Swagger UI's `initOAuth`). PKCE is always on for the authorization-code flow. */
  oauth2?: { clientId?: string; scopes?: readonly string[]; appName?: string };
  /**
   * Whether Swagger UI keeps what the Authorize dialog obtained (the tokens) in the browser's
   * `localStorage`, so a reload stays logged in. Passwords and client secrets typed into the
   * dialog are never kept: they are removed from what it stores. Default `false`: nothing is
   * kept, a reload logs out.
   */
  persistAuthorization?: boolean;
}

/**
 * The files of `swagger-ui-dist` the page loads. Only these are served: a fixed list rules out
 * path traversal by construction.
 */
export const SWAGGER_UI_ASSETS = Object.freeze({
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'oauth2-redirect.html': 'text/html; charset=utf-8',
  'oauth2-redirect.js': 'text/javascript; charset=utf-8',
  'favicon-16x16.png': 'image/png',
  'favicon-32x32.png': 'image/png',
} as const);

/** The name of one file of {@link SWAGGER_UI_ASSETS}. */
export type SwaggerUiAsset = keyof typeof SWAGGER_UI_ASSETS;

/**
 * What the docs answer to one request: a status, headers, and a body (text, one of the
 * `swagger-ui-dist` files, or none). `undefined` from {@link docsRoutes} means "not a docs path".
 */
export interface DocsAnswer {
  status: number;
  headers: Record<string, string>;
  body: { text: string } | { asset: SwaggerUiAsset } | null;
}

const METHOD_NOT_ALLOWED = JSON.stringify({ message: 'Method not allowed', code: 'METHOD_NOT_SUPPORTED' });

const isAsset = (file: string): file is SwaggerUiAsset => Object.hasOwn(SWAGGER_UI_ASSETS, file);

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON inside a script: `<`, U+2028 and U+2029 escaped, so no text ends the script or the line. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

const pageHtml = (title: string, path: string) => `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>${escapeHtml(title)}</title>
    <link rel="stylesheet" type="text/css" href="${path}/swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="${path}/index.css" />
    <link rel="icon" type="image/png" href="${path}/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${path}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${path}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="${path}/swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

// Swagger UI stores the whole authorization state, the typed password and client secret with
// the tokens; this plugin rewrites what it stored without them, right after each store.
const WITHOUT_SECRETS_PLUGIN = `function WithoutSecrets() {
  var strip = function () {
    try {
      var stored = JSON.parse(localStorage.getItem('authorized') || 'null');
      if (stored === null || typeof stored !== 'object') return;
      Object.keys(stored).forEach(function (name) {
        var auth = stored[name];
        if (auth !== null && typeof auth === 'object') {
          delete auth.password;
          delete auth.clientSecret;
        }
      });
      localStorage.setItem('authorized', JSON.stringify(stored));
    } catch (error) {
      localStorage.removeItem('authorized');
    }
  };
  return {
    statePlugins: {
      auth: {
        wrapActions: {
          persistAuthorizationIfNeeded: function (original) {
            return function () {
              var result = original.apply(this, arguments);
              strip();
              return result;
            };
          },
        },
      },
    },
  };
}`;

const initializerJs = (urls: readonly { name: string; url: string }[], path: string, oauth2: DocsOptions['oauth2'], persist: boolean) => `window.onload = function () {
  ${persist ? `var WithoutSecrets = ${WITHOUT_SECRETS_PLUGIN};
  ` : ''}window.ui = SwaggerUIBundle({
    urls: ${scriptJson(urls)},
    'urls.primaryName': ${scriptJson(urls[0]!.name)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: ${persist},
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl${persist ? ', WithoutSecrets' : ''}],
    layout: 'StandaloneLayout',
    oauth2RedirectUrl: window.location.origin + ${scriptJson(`${path}/oauth2-redirect.html`)},
  });
  window.ui.initOAuth(${scriptJson({ ...oauth2, usePkceWithAuthorizationCodeGrant: true })});
};
`;

/** The origins (other than the page's own) a document sends Swagger UI to: servers, token and refresh URLs. */
function documentOrigins(document: object): string[] {
  const urls: unknown[] = [];
  const { servers, components } = document as { servers?: { url?: unknown }[]; components?: { securitySchemes?: Record<string, { flows?: Record<string, Record<string, unknown>> }> } };
  for (const server of servers ?? []) urls.push(server.url);
  for (const scheme of Object.values(components?.securitySchemes ?? {})) {
    for (const flow of Object.values(scheme.flows ?? {})) urls.push(flow.tokenUrl, flow.refreshUrl);
  }
  const origins = new Set<string>();
  for (const url of urls) {
    if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) continue;
    try {
      origins.add(new URL(url).origin);
    } catch {
      // Not a URL Swagger UI could call either.
    }
  }
  return [...origins];
}

/**
 * The headers every docs answer carries: a Content-Security-Policy that loads scripts, styles
 * and fonts from this server only (no CDN, no inline script) and lets Swagger UI call this server
 * and the documents' own servers and token URLs, framing refused (`frame-ancestors 'none'`,
 * `X-Frame-Options: DENY`), `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.
 *
 * @example
 * ```ts
 * docsSecurityHeaders(['https://auth.example.com'])['content-security-policy'];
 * ```
 */
export function docsSecurityHeaders(connectOrigins: readonly string[] = []): Record<string, string> {
  const connect = ["'self'", ...connectOrigins].join(' ');
  return {
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      // Swagger UI sets style attributes on its elements.
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "font-src 'self' data:",
      `connect-src ${connect}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}

/**
 * The docs' routes, for any server: a function from a request's method and path to its
 * {@link DocsAnswer}, or `undefined` for a path that is not the docs'. GET and HEAD only (405
 * with `Allow` otherwise); HEAD answers carry no body.
 */
export function docsRoutes(options: DocsOptions): (method: string, pathname: string) => DocsAnswer | undefined {
  const path = (options.path ?? '/docs').replace(/\/+$/, '') as '' | `/${string}`;
  const urls = options.documents.map((entry) => ({
    name: entry.name ?? String((entry.document as { info?: { title?: unknown } }).info?.title ?? entry.url),
    url: entry.url,
  }));
  const headers = docsSecurityHeaders([...new Set(options.documents.flatMap((entry) => documentOrigins(entry.document)))]);
  const fresh = { ...headers, 'cache-control': 'no-cache' };
  const page = pageHtml(options.title ?? urls[0]!.name, path);
  const initializer = initializerJs(urls, path, options.oauth2, options.persistAuthorization === true);
  const documents = new Map<string, DocsDocument>(options.documents.map((entry) => [entry.url, entry]));
  const json = new Map<string, string>();

  return (method, pathname) => {
    let answer: DocsAnswer | undefined;
    const document = documents.get(pathname);
    if (document !== undefined) {
      if (!json.has(pathname)) json.set(pathname, JSON.stringify(document.document));
      answer = { status: 200, headers: { ...fresh, 'content-type': 'application/json' }, body: { text: json.get(pathname)! } };
    } else if (pathname === path || pathname === `${path}/` || pathname === `${path}/index.html`) {
      answer = { status: 200, headers: { ...fresh, 'content-type': 'text/html; charset=utf-8' }, body: { text: page } };
    } else if (pathname === `${path}/swagger-initializer.js`) {
      answer = { status: 200, headers: { ...fresh, 'content-type': 'text/javascript; charset=utf-8' }, body: { text: initializer } };
    } else if (pathname.startsWith(`${path}/`) && isAsset(pathname.slice(path.length + 1))) {
      const asset = pathname.slice(path.length + 1) as SwaggerUiAsset;
      answer = { status: 200, headers: { ...headers, 'content-type': SWAGGER_UI_ASSETS[asset], 'cache-control': 'public, max-age=3600' }, body: { asset } };
    } else return undefined;
    if (method === 'GET') return answer;
    if (method === 'HEAD') return { ...answer, body: null };
    return { status: 405, headers: { ...headers, allow: 'GET, HEAD', 'content-type': 'application/json' }, body: { text: METHOD_NOT_ALLOWED } };
  };
}
