import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { DEFAULT_MAX_BATCH_SIZE } from '@trpc-oauth2/openapi';
import { createOAuth2HTTPHandler, createOAuth2OpenApiHttpHandler } from '@trpc-oauth2/openapi/adapters/standalone';
import { createDocsHandler } from '@trpc-oauth2/openapi/docs/node';
import { applyWSSHandler } from '@trpc/server/adapters/ws';
import type { AudienceBoundVerifier, JwtPrincipal } from '@trpc-oauth2/jwt';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { WebSocketServer, type WebSocket } from 'ws';
import { TOKEN_URL } from '../api/security.js';
import type { Services } from '../api/trpc.js';
import { clientAddress } from '../auth/login-throttle/client-address.js';
import type { AuthorizationServer } from '../authorization-server/authorization-server.js';
import { faultOf } from '../log.js';
import { DATABASE_RETRY_AFTER_SECONDS, databaseFaultOf } from '../store/database.js';
import { appRouter } from './app-router.js';
import { createMcpEndpoint, MCP_PATH, type McpEndpoint } from '../mcp/mcp-server.js';

/**
 * Where each face of the demo is served.
 *
 * @example
 * ```ts
 * `${url}${PATHS.docs}`; // Swagger UI
 * ```
 */
export const PATHS = {
  trpc: '/trpc',
  rest: '/api',
  token: TOKEN_URL,
  revoke: '/api/revoke',
  openapi: '/openapi.json',
  conformanceOpenapi: '/openapi/conformance.json',
  docs: '/docs',
  authorizationServer: '/oidc',
  mcp: MCP_PATH,
} as const;

/**
 * The OpenAPI documents the demo serves: the API's at `PATHS.openapi`, and the
 * conformance routes' apart at `PATHS.conformanceOpenapi`.
 *
 * @example
 * ```ts
 * const documents: DemoDocuments = { api: apiDocument(), conformance: conformanceDocument() };
 * ```
 */
export interface DemoDocuments {
  api: OpenAPIObject;
  conformance: OpenAPIObject;
}

/**
 * What the request listener serves.
 *
 * @example
 * ```ts
 * const options: DemoHttpOptions = { services, documents, authorizationServer, mcp: { resource, verify } };
 * ```
 */
export interface DemoHttpOptions {
  services: Services;
  documents: DemoDocuments;
  /** The authorization server at `/oidc`, with its login and consent pages at `/interaction/`. */
  authorizationServer: AuthorizationServer;
  /**
   * The MCP resource (`mcpResource(publicUrl)`, the one the authorization server issues its
   * tokens for) and the verifier of those tokens.
   */
  mcp: { resource: string; verify: AudienceBoundVerifier<JwtPrincipal> };
}

/**
 * Readable from any origin. The demo's credentials are tokens in the `Authorization` header, never
 * cookies: a page on another origin gets nothing it could not send itself, so no
 * `Access-Control-Allow-Credentials`.
 */
const ANY_ORIGIN = { 'access-control-allow-origin': '*' } as const;

/**
 * A metadata document answered as the library's handlers answer theirs: 200 to `GET` and `HEAD`,
 * 204 to a CORS preflight, 405 with `Allow` to any other method; readable from any origin and
 * cacheable for an hour.
 */
function answerMetadata(method: string, res: ServerResponse, document: object): void {
  const headers = { ...ANY_ORIGIN, 'cache-control': 'public, max-age=3600' };
  // A browser's MCP client asks with `MCP-Protocol-Version`: the preflight allows any header but `Authorization`.
  if (method === 'OPTIONS') return void res.writeHead(204, { ...headers, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-allow-headers': '*' }).end();
  if (method !== 'GET' && method !== 'HEAD') return sendJson(res, 405, { message: 'Method not allowed', code: 'METHOD_NOT_SUPPORTED' }, { ...headers, allow: 'GET, HEAD, OPTIONS' });
  const body = JSON.stringify(document);
  res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(method === 'HEAD' ? undefined : body);
}

const MCP_CORS = { ...ANY_ORIGIN, 'access-control-expose-headers': 'WWW-Authenticate, DPoP-Nonce, Mcp-Session-Id' };
const MCP_PREFLIGHT = {
  'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID, DPoP',
};

/**
 * The MCP endpoint for a browser's MCP client on another origin (the MCP Inspector): the library's
 * handlers answer no CORS preflight (docs/contract.md#body-limits), so the demo answers it here.
 * A preflight is 204. It names its headers one by one: `*` would not allow `Authorization`. It
 * allows `GET` and `DELETE` too, which the stateless endpoint refuses with 405: the client then
 * reads that 405, as it expects, instead of failing on the preflight. Every other answer is the
 * endpoint's, readable from any origin with its `WWW-Authenticate` (the challenge naming
 * `resource_metadata`, where the client's discovery starts), `DPoP-Nonce` (the nonce a DPoP
 * client's next proof must carry) and `Mcp-Session-Id` (which MCP's
 * Streamable HTTP has a client read after `initialize`; this stateless endpoint sends none yet).
 */
function answerMcp(req: IncomingMessage, res: ServerResponse, mcp: McpEndpoint): Promise<void> | void {
  for (const [name, value] of Object.entries(MCP_CORS)) res.setHeader(name, value);
  if (req.method !== 'OPTIONS') return mcp.handle(req, res);
  res.writeHead(204, MCP_PREFLIGHT).end();
}

/**
 * Server faults only: client mistakes are answered, not logged, and never with request data. A
 * database that cannot be reached (503) is a fault of the server too, logged as the others are.
 */
const logServerError = ({ error, path }: { error: { code: string; cause?: unknown; name: string; message: string }; path?: string }) => {
  if (error.code !== 'INTERNAL_SERVER_ERROR' && error.code !== 'SERVICE_UNAVAILABLE') return;
  const cause = error.cause instanceof Error ? error.cause : error;
  if (cause.name === 'AbortError') return; // the client went away mid-call: nothing failed here
  console.error(`${path ?? 'request'} failed: ${faultOf(cause)}`);
};

/**
 * A request target as a URL built from it reads it: `/api/../mcp` is `/mcp`, `/docs/%2e/` is
 * `/docs/`. `undefined` when no URL can be built from it. `spelledOtherwise`: `url` differs from
 * the target as sent.
 */
function resolvedTarget(target: string): { pathname: string; url: string; spelledOtherwise: boolean } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(target, 'http://localhost');
  } catch {
    return undefined;
  }
  const url = `${parsed.pathname}${parsed.search}`;
  return { pathname: parsed.pathname, url, spelledOtherwise: url !== target };
}

/**
 * `Retry-After` on an answer with a call that could not be served for now (503
 * `SERVICE_UNAVAILABLE`: the database cannot be reached), on the tRPC and REST faces alike,
 * the token endpoint's RFC 6749 answers included.
 */
const retryWhenUnavailable = ({ errors }: { errors: readonly { code: string }[] }) =>
  errors.some((error) => error.code === 'SERVICE_UNAVAILABLE') ? { headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) } } : {};

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
};

/**
 * The demo's HTTP routes: tRPC at `/trpc`, the REST operations at `/api` (trpc-to-openapi; the
 * token endpoint `POST /api/token` and `POST /api/revoke` among them, answered in RFC 6749's
 * shapes by the library's handler), the OpenAPI documents, Swagger UI at `/docs/`, the
 * authorization server at `/oidc` with its login and consent pages at `/interaction/`, and the
 * MCP endpoint at `/mcp` with its protected resource metadata.
 *
 * @example
 * ```ts
 * http.createServer(demoRequestListener({ services, documents, authorizationServer, mcp: { resource, verify } })).listen(3000);
 * ```
 */
export function demoRequestListener({ services, documents, authorizationServer, mcp: mcpOptions }: DemoHttpOptions): RequestListener {
  const mcp = createMcpEndpoint({
    resource: mcpOptions.resource,
    issuer: authorizationServer.issuer,
    verify: mcpOptions.verify,
    services,
    clientAddress: (req) => clientAddress(req.socket),
  });
  const trpc = createOAuth2HTTPHandler({
    router: appRouter,
    basePath: `${PATHS.trpc}/`,
    // `info` on ctx: the readers refuse a credential in the URL of a subscription (docs/contract.md#subscriptions).
    createContext: ({ req, info }) => ({ req, info, clientAddress: clientAddress(req.socket), services }),
    onError: logServerError,
    responseMeta: retryWhenUnavailable,
  });
  const rest = createOAuth2OpenApiHttpHandler({
    router: appRouter,
    basePath: PATHS.rest,
    // req: the Fetch Request trpc-to-openapi reads; incoming: the Node request it was built from.
    createContext: ({ req, incoming }) => ({ req, clientAddress: clientAddress(incoming.socket), services }),
    onError: logServerError,
    responseMeta: retryWhenUnavailable,
  });
  const docs = createDocsHandler({
    path: PATHS.docs,
    documents: [
      { name: 'Demo API', url: PATHS.openapi, document: documents.api },
      { name: 'Conformance routes', url: PATHS.conformanceOpenapi, document: documents.conformance },
    ],
    title: 'trpc-oauth2 demo',
    // The public client of DEMO_CLIENTS: Swagger UI sends Basic credentials even without one.
    oauth2: { clientId: 'swagger-ui' },
    // A reload keeps the tokens (never the typed password: the docs helper strips it).
    persistAuthorization: true,
  });

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const target = resolvedTarget(req.url ?? '/');
    if (target === undefined) return sendJson(res, 400, { message: 'Invalid URL', code: 'BAD_REQUEST' });
    // Every face below reads the one spelling a URL resolves to: the libraries' handlers resolve
    // it themselves, but the authorization server's mount and the pages below it read `req.url`.
    if (target.spelledOtherwise) req.url = target.url;
    const { pathname } = target;
    // An answer to a request with credentials is personal: no cache may keep it, on any face.
    if (req.headers.authorization !== undefined) res.setHeader('cache-control', 'no-store');
    if (pathname === PATHS.trpc || pathname.startsWith(`${PATHS.trpc}/`)) return trpc(req, res);
    if (pathname.startsWith(`${PATHS.rest}/`)) return rest(req, res);
    if (pathname === PATHS.mcp) return answerMcp(req, res, mcp);
    // RFC 9728 §3.1: the MCP resource's metadata, at its path-aware well-known URL.
    if (pathname === mcp.metadataPath) return answerMetadata(req.method ?? 'GET', res, mcp.metadata);
    if (pathname === '/') return res.writeHead(302, { location: PATHS.docs }).end();
    // Browsers ask for it on every page; the demo has none, and says so without a 404 logged.
    if (pathname === '/favicon.ico') return res.writeHead(204, { 'cache-control': 'max-age=86400' }).end();
    if (docs(req, res)) return;
    if (authorizationServer.handle(req, res, pathname)) return;
    sendJson(res, 404, { message: 'Not found', code: 'NOT_FOUND' });
  };

  return (req, res) => {
    route(req, res).catch((error: unknown) => {
      const unavailable = databaseFaultOf(error);
      console.error(`request failed: ${faultOf(unavailable ?? error)}`);
      if (res.headersSent) return void res.destroy();
      if (unavailable === undefined) return sendJson(res, 500, { message: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
      sendJson(res, 503, { message: 'Service unavailable', code: 'SERVICE_UNAVAILABLE' }, { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) });
    });
  };
}

/**
 * The most a WebSocket connection may hold queued for its client. tRPC's adapter sends every
 * answer whether or not the client reads: one that stops reading while it sends calls (or while
 * its subscriptions run) would have the server queue answers without end. Past this, the
 * connection is closed.
 */
const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

/** Closes `socket` when its client leaves more than {@link MAX_UNREAD_BYTES} unread, instead of queueing more. */
function closingWhenUnread(socket: WebSocket): void {
  const send = socket.send.bind(socket);
  socket.send = ((...args: Parameters<WebSocket['send']>) => {
    if (socket.bufferedAmount > MAX_UNREAD_BYTES) return void socket.terminate();
    send(...args);
  }) as WebSocket['send'];
}

/** An error of `ws` for what the client sent (a frame too large, a bad opcode): its code starts with `WS_ERR_`. */
const isClientProtocolError = (cause: unknown): boolean => {
  const code = cause instanceof Error ? (cause as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('WS_ERR_');
};

/**
 * tRPC over WebSockets on the demo's own port: an upgrade to `/trpc` is served by tRPC's
 * WebSocket adapter, the credential coming in the connection params
 * (`createWSClient({ url: 'ws://…/trpc', connectionParams: () => ({ authorization: 'Bearer …' }) })`).
 * Returns how to stop: every connection is closed.
 *
 * @example
 * ```ts
 * const stopWebSockets = serveWebSockets(server, services);
 * ```
 */
export function serveWebSockets(server: Server, services: Services): () => Promise<void> {
  const wss = new WebSocketServer({ server, path: PATHS.trpc, maxPayload: 100_000 });
  // Registered before tRPC's handler, so every answer it sends goes through this bound.
  wss.on('connection', closingWhenUnread);
  applyWSSHandler({
    wss,
    router: appRouter,
    createContext: ({ req, info }) => ({ req, info, clientAddress: clientAddress(req.socket), services }),
    // A message holding a batch is held to the HTTP faces' limit (tRPC runs every call of one).
    maxBatchSize: DEFAULT_MAX_BATCH_SIZE,
    onError: ({ error, path }) => {
      // A frame the client sent too large or malformed: `ws` closes the connection, tRPC reports it as a fault.
      if (isClientProtocolError(error.cause)) return;
      logServerError({ error, path });
    },
    keepAlive: { enabled: true, pingMs: 30_000, pongWaitMs: 5_000 },
  });
  return () =>
    new Promise<void>((resolve) => {
      for (const client of wss.clients) client.terminate();
      wss.close(() => resolve());
    });
}
