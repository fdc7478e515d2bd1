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
  /** Where the document is served, e.g. `/openapi.json`; matched as a browser requests it, percent-encoded. */
  url: `/${string}`;
  /** The OpenAPI document (e.g. from `generateOAuth2OpenApiDocument`). */
  document: object;
}

/** The options of the docs handlers. */
export interface DocsOptions {
  /** The documents served and offered in the top bar; the first is shown first. */
  documents: readonly [DocsDocument, ...DocsDocument[]];
  /**
   * Where Swagger UI lives: its page at `path` and `path/`, its files below. Default `/docs`.
   * Matched as a browser requests it, percent-encoded (`/références` is `/r%C3%A9f%C3%A9rences`).
   */
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
  /**
   * Origins Swagger UI may call besides this server and those the documents name (their servers
   * at every level, token and refresh URLs, OpenID Connect discovery URLs), added to the
   * Content-Security-Policy's `connect-src`. Needed for what is known only at runtime: the token
   * endpoint an OpenID Connect discovery document names, when it is on another origin than the
   * discovery URL, or a server whose URL has a variable filled in by hand. Each must be an http(s)
   * origin (`https://auth.example.com`); anything else throws a `TypeError` when the handler is
   * created.
   */
  connectOrigins?: readonly string[];
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
 * A file is named for a HEAD too (`head: true`, to be answered without its content): the adapter
 * finds out whether it is there, and answers a 404 when it is not, as for a GET.
 */
export interface DocsAnswer {
  status: number;
  headers: Record<string, string>;
  body: { text: string } | { asset: SwaggerUiAsset; head?: boolean } | null;
}

const METHOD_NOT_ALLOWED = JSON.stringify({ message: 'Method not allowed', code: 'METHOD_NOT_SUPPORTED' });

/** Whether `file` is one of {@link SWAGGER_UI_ASSETS}: the only names an adapter reads. */
export const isAsset = (file: string): file is SwaggerUiAsset => Object.hasOwn(SWAGGER_UI_ASSETS, file);

/**
 * The headers of the 404 for a file of {@link SWAGGER_UI_ASSETS} that cannot be found, from the
 * headers its 200 would have had: the safe headers kept, JSON, not cached (the file may be there
 * once the deployment is fixed).
 */
export const missingAssetHeaders = (headers: Record<string, string>): Record<string, string> => ({
  ...headers,
  'content-type': 'application/json',
  'cache-control': 'no-cache',
});

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
    <link rel="stylesheet" type="text/css" href="${escapeHtml(path)}/swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="${escapeHtml(path)}/index.css" />
    <link rel="icon" type="image/png" href="${escapeHtml(path)}/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${escapeHtml(path)}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${escapeHtml(path)}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="${escapeHtml(path)}/swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

// Swagger UI stores the whole authorization state in `localStorage.authorized`, one entry per
// scheme (swagger-ui's auth reducers): `apiKey` and `http` keep the dialog's `value` (a key, a
// bearer token, or HTTP Basic's `{ username, password }`); Swagger 2's `basic` keeps `{ username,
// header }`, the header being base64 of `username:password`; `oauth2` and `openIdConnect` keep the
// dialog's fields (`username`, `password`, `clientId`, `clientSecret`, and, for the
// authorization-code flow, the spent `code` and PKCE `codeVerifier`) beside the `token` obtained.
// This plugin rewrites what it stored right after each store, and once on load for what an older
// page stored, keeping the tokens and no password or client secret (docs/contract.md#openapi):
// an HTTP Basic entry is dropped whole, since a username kept without its password would show
// "Authorized" after a reload and send `Basic base64(username:)`.
const WITHOUT_SECRETS_PLUGIN = `function WithoutSecrets() {
  var isBasic = function (auth) {
    var schema = auth.schema || {};
    var value = auth.value;
    return schema.type === 'basic' || (schema.type === 'http' && /^basic$/i.test(String(schema.scheme)))
      || (value !== null && typeof value === 'object' && ('password' in value || 'header' in value));
  };
  var strip = function () {
    try {
      var stored = JSON.parse(localStorage.getItem('authorized') || 'null');
      if (stored === null) return;
      if (typeof stored !== 'object') throw new TypeError('not an object');
      Object.keys(stored).forEach(function (name) {
        var auth = stored[name];
        if (auth === null || typeof auth !== 'object' || isBasic(auth)) {
          delete stored[name];
          return;
        }
        delete auth.password;
        delete auth.clientSecret;
        delete auth.code;
        delete auth.codeVerifier;
      });
      localStorage.setItem('authorized', JSON.stringify(stored));
    } catch (error) {
      localStorage.removeItem('authorized');
    }
  };
  strip();
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

/** What documentOrigins reads of a server object: its URL and the variables that fill it. */
interface ServerObject {
  url?: unknown;
  variables?: Record<string, { default?: unknown; enum?: unknown }>;
}

/** Past this many URLs from one templated server, only the variables' defaults are used. */
const MAX_SERVER_URLS = 64;

/**
 * The URLs one server object stands for. A templated URL (`https://{region}.example.com`) is
 * filled with each value Swagger UI's server menu offers for its variables: the default and each
 * `enum` value (the defaults only, past {@link MAX_SERVER_URLS}). A variable the document does not
 * declare, or one with no string value, cannot be filled: that URL is skipped.
 */
function serverUrls(server: ServerObject): string[] {
  if (typeof server?.url !== 'string') return [];
  const fill = (valuesOf: (variable: { default?: unknown; enum?: unknown }) => unknown[]) => {
    let urls = [server.url as string];
    for (const [name, variable] of Object.entries(typeof server.variables === 'object' ? (server.variables ?? {}) : {})) {
      const values = [...new Set(valuesOf(variable ?? {}).filter((value): value is string => typeof value === 'string'))];
      urls = urls.flatMap((url) => (url.includes(`{${name}}`) ? values.map((value) => url.replaceAll(`{${name}}`, value)) : [url]));
    }
    return urls.filter((url) => !/[{}]/.test(url));
  };
  const every = fill((variable) => [variable.default, ...(Array.isArray(variable.enum) ? variable.enum : [])]);
  return every.length <= MAX_SERVER_URLS ? every : fill((variable) => [variable.default]);
}

/** The server objects Swagger UI may send "Try it out" to: the document's, each path's and each operation's. */
function documentServers(document: { servers?: unknown; paths?: unknown }): ServerObject[] {
  const listed = (holder: unknown): ServerObject[] => {
    const servers = (holder as { servers?: unknown } | null)?.servers;
    return Array.isArray(servers) ? servers : [];
  };
  const servers = [...listed(document)];
  for (const pathItem of Object.values((document.paths ?? {}) as Record<string, unknown>)) {
    if (pathItem === null || typeof pathItem !== 'object') continue;
    servers.push(...listed(pathItem));
    // Each operation (get, post…, and OpenAPI 3.2's additional ones) is an object member of the path item.
    for (const member of Object.values(pathItem)) if (member !== null && typeof member === 'object' && !Array.isArray(member)) servers.push(...listed(member));
  }
  return servers;
}

/**
 * The URLs a document's security schemes send Swagger UI to with `fetch`: the OAuth2 flows'
 * token and refresh URLs, and an OpenID Connect scheme's discovery document (without which the
 * scheme is missing from the Authorize dialog). Authorization URLs open in a popup, which the
 * page's `connect-src` does not govern.
 */
function schemeUrls(document: { components?: unknown }): unknown[] {
  const schemes = (document.components as { securitySchemes?: Record<string, unknown> } | undefined)?.securitySchemes ?? {};
  const urls: unknown[] = [];
  for (const scheme of Object.values(schemes) as { flows?: Record<string, Record<string, unknown>>; openIdConnectUrl?: unknown }[]) {
    if (scheme === null || typeof scheme !== 'object') continue;
    urls.push(scheme.openIdConnectUrl);
    for (const flow of Object.values(scheme.flows ?? {})) urls.push(flow?.tokenUrl, flow?.refreshUrl);
  }
  return urls;
}

/**
 * The origins (other than the page's own) a document sends Swagger UI to: its servers, at every
 * level, and its schemes' token, refresh and OpenID Connect discovery URLs. Relative URLs are
 * resolved by the browser against the page (or the server chosen), already allowed as `'self'` or
 * as that server; a network-path one (`//api.example.com`) names another host, given as a
 * host-source without a scheme (`api.example.com`).
 */
function documentOrigins(document: object): string[] {
  const urls = [...documentServers(document).flatMap(serverUrls), ...schemeUrls(document)];
  const origins = new Set<string>();
  for (const url of urls) {
    if (typeof url !== 'string') continue;
    // A network-path reference (`//api.example.com/v1`) is relative to the page's scheme only:
    // Swagger UI resolves it against the document's URL, to another host. A host-source without
    // a scheme is matched in the page's (CSP's host-source matching), so the host alone is named.
    const networkPath = url.startsWith('//');
    if (!networkPath && !/^https?:\/\//i.test(url)) continue;
    let origin: string | undefined;
    try {
      // The origin of the URL, if it is one the policy can name (a wildcard host is left out).
      origin = networkPath ? networkPathSource(url) : originOf(new URL(url).origin);
    } catch {
      // Not a URL Swagger UI could call either.
    }
    if (origin !== undefined) origins.add(origin);
  }
  return [...origins];
}

/**
 * The host-source of a network-path URL (`//api.example.com:8443/v1` → `api.example.com:8443`):
 * its host, and its port as written, even the default port of a scheme. The page's scheme fills
 * it in, so `//api.example.com:443` is `http://api.example.com:443` from an `http:` page: a source
 * without the port would allow port 80 there instead, and refuse the one the document names.
 * The port is read with both schemes, each of which drops its own default (docs/contract.md#openapi).
 */
function networkPathSource(url: string): string | undefined {
  const secure = new URL(`https:${url}`);
  if (originOf(secure.origin) === undefined) return undefined;
  const port = secure.port === '' ? new URL(`http:${url}`).port : secure.port;
  return port === '' ? secure.hostname : `${secure.hostname}:${port}`;
}

/**
 * A host a CSP host-source can name: letters, digits, `-` and `.` (CSP's host-char), or an IPv6
 * literal, with a port. The URL parser accepts more in a host (`;`, `,`, `'`, `*`, `!`…), and
 * `;` would end `connect-src` and start a directive of the host's choosing (`sandbox`), `,` a
 * second policy (docs/contract.md#openapi).
 */
const CSP_HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::\d+)?$/;

/**
 * `value` as an http(s) origin, normalized (`https://Auth.example.com/` is
 * `https://auth.example.com`), or `undefined` for anything else (a path, a query, credentials, a
 * wildcard, a CSP keyword, a host with a character no CSP host-source holds), which would widen
 * or break the policy.
 */
function originOf(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const isOrigin =
    /^https?:$/.test(url.protocol) &&
    CSP_HOST.test(url.host) &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    url.search === '' &&
    url.hash === '' &&
    !/[?#]/.test(value);
  return isOrigin ? url.origin : undefined;
}

/** An origin the application lists (`option` names where), normalized; anything else throws a `TypeError`. */
function connectOrigin(value: string, option = 'connectOrigins'): string {
  const origin = originOf(value);
  if (origin === undefined) throw new TypeError(`${option}: ${JSON.stringify(value)} is not an http(s) origin such as https://auth.example.com`);
  return origin;
}

/**
 * The headers every docs answer carries: a Content-Security-Policy that loads scripts, styles
 * and fonts from this server only (no CDN, no inline script) and lets Swagger UI call this server
 * and the origins given (the docs handlers give the documents' servers, token, refresh and OpenID
 * Connect discovery URLs, and `connectOrigins`), framing refused (`frame-ancestors 'none'`,
 * `X-Frame-Options: DENY`), `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.
 * Each of `connectOrigins` must be an http(s) origin, as the docs handlers' option of that name:
 * anything else (a path, a wildcard, a CSP keyword, a `;` starting another directive) throws a
 * `TypeError`, since it would widen or break the policy.
 *
 * @example
 * ```ts
 * docsSecurityHeaders(['https://auth.example.com'])['content-security-policy'];
 * ```
 */
export function docsSecurityHeaders(connectOrigins: readonly string[] = []): Record<string, string> {
  return securityHeaders(connectOrigins.map((origin) => connectOrigin(origin, 'docsSecurityHeaders')));
}

/** {@link docsSecurityHeaders} for origins already normalized by {@link originOf}. */
function securityHeaders(origins: readonly string[]): Record<string, string> {
  const connect = ["'self'", ...new Set(origins)].join(' ');
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
 * `path` as the pathname a browser requests for it: percent-encoded (`/références` is
 * `/r%C3%A9f%C3%A9rences`, a quote `%22`), dot segments resolved, query and fragment dropped. The
 * requests' pathnames are compared with it, so a `path` or document `url` outside plain ASCII is
 * reached (docs/contract.md#openapi); the page's links are written from it.
 */
const urlPath = (path: string) => new URL(`http://localhost${path}`).pathname;

/**
 * The docs' routes, for any server: a function from a request's method and path to its
 * {@link DocsAnswer}, or `undefined` for a path that is not the docs'. GET and HEAD only (405
 * with `Allow` otherwise); HEAD answers carry no body.
 */
export function docsRoutes(options: DocsOptions): (method: string, pathname: string) => DocsAnswer | undefined {
  const path = urlPath(options.path ?? '/docs').replace(/\/+$/, '');
  const urls = options.documents.map((entry) => ({
    name: entry.name ?? String((entry.document as { info?: { title?: unknown } }).info?.title ?? entry.url),
    url: entry.url,
  }));
  const connect = [...options.documents.flatMap((entry) => documentOrigins(entry.document)), ...(options.connectOrigins ?? []).map((origin) => connectOrigin(origin))];
  const headers = securityHeaders(connect);
  const fresh = { ...headers, 'cache-control': 'no-cache' };
  const page = pageHtml(options.title ?? urls[0]!.name, path);
  const initializer = initializerJs(urls, path, options.oauth2, options.persistAuthorization === true);
  const documents = new Map<string, DocsDocument>(options.documents.map((entry) => [urlPath(entry.url), entry]));
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
    if (method === 'HEAD') return { ...answer, body: answer.body !== null && 'asset' in answer.body ? { ...answer.body, head: true } : null };
    return { status: 405, headers: { ...headers, allow: 'GET, HEAD', 'content-type': 'application/json' }, body: { text: METHOD_NOT_ALLOWED } };
  };
}
