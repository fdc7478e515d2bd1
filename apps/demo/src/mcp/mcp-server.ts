/**
 * The demo as an MCP server: `/mcp`, Streamable HTTP (stateless, JSON answers), whose tools call
 * the demo's own procedures with the caller's token, through the same readers and scopes; and
 * the protected resource metadata (RFC 9728) that announces it, derived from the tools' chains.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { getOAuth2Error, oauth2AuthorizationCodeBearer } from '@trpc-oauth2/core';
import { dpopNotAuthenticatedError } from '@trpc-oauth2/core/dpop';
import { canonicalResource, getProcedureSecurity } from '@trpc-oauth2/core/protocol';
import type { AudienceBoundVerifier, JwtPrincipal, VerifyOptions } from '@trpc-oauth2/jwt';
import { DEFAULT_MAX_BATCH_SIZE, protectedResourceMetadata, resourceMetadataUrl, type ProtectedResourceMetadata } from '@trpc-oauth2/openapi';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { DPOP_READING, userOf } from '../api/security.js';
import { t, type DemoContext, type Services } from '../api/trpc.js';
import { DPOP_ALGORITHMS } from '../auth/dpop.js';
import { DEMO_SCOPES, type DemoScope } from '../auth/scopes.js';
import { AUTHORIZATION_SERVER_ENDPOINTS } from '../authorization-server/authorization-server.js';
import { faultOf } from '../log.js';
import { BODY_TOO_LARGE, CLIENT_GONE, closeSoonIfUnread, readBody } from '../request-body.js';
import { appRouter } from '../server/app-router.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../store/database.js';

/**
 * Where the MCP endpoint is served; with the demo's URL in front, it is the MCP resource's identifier.
 *
 * @example
 * ```ts
 * `${demo.url}${MCP_PATH}`; // the resource its tokens are issued for
 * ```
 */
export const MCP_PATH = '/mcp';

/**
 * The MCP resource's identifier (RFC 8707) for the demo at `baseUrl` (its public URL, or the
 * address it listens on): `baseUrl` plus {@link MCP_PATH}, canonical as its protected resource
 * metadata advertises it. The one string the authorization server issues tokens for, the
 * endpoint's verifier accepts as `aud` and its metadata names; throws a `TypeError` when it is no
 * `https:` URL (`http:` on a loopback host).
 *
 * @example
 * ```ts
 * mcpResource('https://demo.example'); // 'https://demo.example/mcp'
 * ```
 */
export function mcpResource(baseUrl: string): string {
  return canonicalResource(`${baseUrl}${MCP_PATH}`, 'the MCP resource');
}

// The largest JSON-RPC body read: a tool call of this demo is a few hundred bytes.
const MAX_BODY_BYTES = 64 * 1024;

/** The tools, each the demo procedure it calls (its scopes are read from that procedure's chain). */
const TOOLS = {
  whoami: { description: 'Who the token belongs to (users.me)', call: (ctx: DemoContext) => appRouter.createCaller(ctx).users.me() },
  my_items: { description: "The items of the token's user (users.items)", call: (ctx: DemoContext) => appRouter.createCaller(ctx).users.items() },
} as const;
const PROCEDURES = { whoami: appRouter.users.me, my_items: appRouter.users.items };
type ToolName = keyof typeof TOOLS;

/** The scopes a procedure's chain requires, read from the chain (the single source of truth). */
function requiredScopes(procedure: { _def: object }): DemoScope[] {
  const requirement = getProcedureSecurity(procedure)?.requirement ?? {};
  return [...new Set(Object.values(requirement).flat())] as DemoScope[];
}

/**
 * What {@link createMcpEndpoint} needs.
 *
 * @example
 * ```ts
 * const options: McpEndpointOptions = { resource: mcpResource(publicUrl), issuer, verify, services, clientAddress };
 * ```
 */
export interface McpEndpointOptions {
  /**
   * The MCP resource's identifier, as {@link mcpResource} makes it from the demo's public URL (or
   * the address it listens on): what its metadata advertises, whatever `Host` a request names.
   */
  resource: string;
  /** The authorization server's issuer. */
  issuer: string;
  /**
   * Verifies the authorization server's tokens for `resource` (its only audience); the endpoint
   * then refuses a token whose user `services.users` does not find, as the API does. The demo's
   * verifies them with the key in `DATA_DIR`: an instance behind a public URL need not reach its
   * own key set through it.
   */
  verify: AudienceBoundVerifier<JwtPrincipal>;
  services: Services;
  /** How the tools' ctx gets the client's address. */
  clientAddress: (req: IncomingMessage) => string;
}

/**
 * The MCP endpoint and its metadata.
 *
 * @example
 * ```ts
 * const mcp = createMcpEndpoint(options);
 * if (pathname === MCP_PATH) await mcp.handle(req, res);
 * ```
 */
export interface McpEndpoint {
  /** The MCP resource's identifier (RFC 8707): the audience of its tokens. */
  readonly resource: string;
  /** Its RFC 9728 metadata, served at {@link McpEndpoint.metadataPath}. */
  readonly metadata: ProtectedResourceMetadata;
  /** `/.well-known/oauth-protected-resource/mcp`. */
  readonly metadataPath: string;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/**
 * The demo's MCP endpoint. Every request is first let in by the MCP reader (a JWT of the demo's
 * authorization server whose audience is the MCP resource, naming a user who exists, with the
 * scopes the request needs: a
 * tool call needs its procedure's scopes, anything else `me`); a DPoP-bound token comes as
 * `DPoP <token>` with a proof of the request, checked as the API checks one (one replay store
 * for every instance, the API's nonces), and is refused as `Bearer`; a refusal is the reader's own
 * challenge, `resource_metadata` included (401 no or bad token, in both schemes when there is no
 * token; 403 `insufficient_scope` naming the tool's scopes); any other failure of the reader is answered with its HTTP status too (503
 * when the verifier is unavailable). The token is checked before the body is read: a request
 * without a valid one is refused with 401 whatever its body, which is neither kept nor parsed
 * (read to 64 KiB and dropped). A JSON-RPC batch of more than `DEFAULT_MAX_BATCH_SIZE` messages
 * (20, a tRPC batch's limit) is a 400. The tool then calls the procedure through `createCaller`
 * with the request itself as ctx, so the procedure's readers and scopes check the same token again.
 *
 * @example
 * ```ts
 * const mcp = createMcpEndpoint({ resource: mcpResource(publicUrl), issuer, verify, services, clientAddress });
 * ```
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const resource = canonicalResource(options.resource, 'resource');
  const metadataUrl = resourceMetadataUrl(resource);
  // The token and the user it names, as the procedures the tools call verify it: a token whose
  // user no longer exists is refused here with 401 `invalid_token` and the challenge, as the API
  // refuses it, never let in to a 200 whose tool result carries the procedure's refusal (MCP
  // authorization: an invalid token is answered 401). Its audience and issuers are the verifier's
  // own, which the metadata is checked against.
  const verify: AudienceBoundVerifier<JwtPrincipal> = Object.assign(
    async (token: string, verifyOptions?: VerifyOptions) => {
      const principal = await options.verify(token, verifyOptions);
      await userOf(options.services, principal.subject);
      return principal;
    },
    { audience: options.verify.audience, ...(options.verify.issuer === undefined ? {} : { issuer: options.verify.issuer }) },
  );
  const reader = oauth2AuthorizationCodeBearer({
    authorizationUrl: `${options.issuer}${AUTHORIZATION_SERVER_ENDPOINTS.authorization}`,
    tokenUrl: `${options.issuer}${AUTHORIZATION_SERVER_ENDPOINTS.token}`,
    scopes: DEMO_SCOPES,
    schemeName: 'DemoMcp',
    resourceMetadata: metadataUrl,
    // No token: the challenge names what any request needs, so the client asks for that first.
    makeNotAuthenticatedError: () => notAuthenticated(metadataUrl),
    verify,
    // DPoP-bound tokens (RFC 9449) as the API reads them: the authorization server binds the MCP
    // resource's tokens to a client's key when its token request carries a proof. The proof is
    // checked by the API's checker (the database's replay store, the shared nonces), once per
    // request: the gates and the procedure a tool calls check the one proof of one request.
    ...DPOP_READING,
  });
  // One gate per tool with the scopes of the procedure it calls, one for everything else, and the
  // token alone, checked before the body is read.
  const gates = t.router({
    token: t.procedure.use(reader).query(() => true),
    session: t.procedure.use(reader.withScopes('me')).query(() => true),
    whoami: t.procedure.use(reader.withScopes(...(requiredScopes(PROCEDURES.whoami) as ['me']))).query(() => true),
    my_items: t.procedure.use(reader.withScopes(...(requiredScopes(PROCEDURES.my_items) as ['me']))).query(() => true),
  });
  const metadata = protectedResourceMetadata(gates, {
    resource,
    authorizationServers: [options.issuer],
    resourceName: 'trpc-oauth2 demo (MCP)',
    resourceDocumentation: `${new URL(resource).origin}/docs`,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return jsonRpcError(res, 405, -32000, 'Method not allowed: this stateless endpoint takes POST only', { allow: 'POST' });
    const ctx: DemoContext = { req, clientAddress: options.clientAddress(req), services: options.services };
    const gated = gates.createCaller(ctx);
    // Who asks comes first: without a valid token the body is not kept or parsed (it is read to
    // the limit and dropped, so that the answer reaches a client still sending it).
    try {
      await gated.token();
    } catch (error) {
      const body = await readBody(req, MAX_BODY_BYTES, false);
      if (body === CLIENT_GONE) return;
      if (body === BODY_TOO_LARGE) closeSoonIfUnread(req, res);
      return refused(res, error);
    }
    const body = await readJson(req);
    // The client went away while sending: no one is left to answer.
    if (body === CLIENT_GONE) return;
    if (body === BODY_TOO_LARGE) {
      closeSoonIfUnread(req, res);
      return jsonRpcError(res, 413, -32600, 'Request too large');
    }
    if (body === MALFORMED) return jsonRpcError(res, 400, -32700, 'Parse error');
    // Each tool call of a batch runs a procedure, its token verified again: a batch holds at most
    // what a tRPC batch of the API's faces holds (the MCP SDK alone would take 100 messages).
    if (Array.isArray(body) && body.length > DEFAULT_MAX_BATCH_SIZE) {
      return jsonRpcError(res, 400, -32600, `Invalid Request: a batch holds at most ${DEFAULT_MAX_BATCH_SIZE} messages`);
    }
    // The tools' scopes first: a 403 names every scope of the tool called, so one step-up will do.
    // `me` is checked for what is not a tool call: the token was verified once already, and each
    // gate verifies it again.
    const { tools, others } = callsOf(body);
    try {
      for (const tool of tools) await gated[tool]();
      if (others) await gated.session();
    } catch (error) {
      return refused(res, error);
    }
    const server = new McpServer({ name: 'trpc-oauth2-demo', version: '0.1.0' });
    for (const [name, tool] of Object.entries(TOOLS) as [ToolName, (typeof TOOLS)[ToolName]][]) {
      server.registerTool(name, { description: tool.description }, async () => ({
        content: [{ type: 'text', text: JSON.stringify(await tool.call(ctx)) }],
      }));
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  return { resource, metadata, metadataPath: new URL(metadataUrl).pathname, handle };
}

/**
 * A gate's failure, answered with its HTTP status: the reader's refusal (an OAuth2 error) with its
 * challenge; any other tRPC error with the status tRPC gives its code (a verifier that cannot
 * reach its keys is `SERVICE_UNAVAILABLE`: 503, never a 500 that reads as a bug), a server fault
 * logged and answered without its message (a 503 with `Retry-After`, as the API's faces answer
 * it). Anything else is rethrown (the caller's 500).
 */
function refused(res: ServerResponse, error: unknown): void {
  const refusal = getOAuth2Error(error);
  if (refusal !== undefined) return jsonRpcError(res, refusal.status, -32001, refusal.message, refusal.headers);
  if (!(error instanceof TRPCError)) throw error;
  const status = getHTTPStatusCodeFromError(error);
  if (status < 500) return jsonRpcError(res, status, -32600, error.message);
  console.error(`${MCP_PATH} request failed: ${faultOf(error.cause ?? error)}`);
  // A 503 says when to ask again, as the API's faces say it (the database, or the key set, is back soon).
  const retry: Record<string, string> = status === 503 ? { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) } : {};
  jsonRpcError(res, status, -32603, status === 503 ? 'Service unavailable: try again later' : 'Internal server error', retry);
}

/**
 * The 401 of a request without a token: both schemes the endpoint reads (`Bearer`, and `DPoP`
 * with the proof algorithms it accepts), each naming the scope any request needs and the metadata.
 */
function notAuthenticated(resourceMetadata: string): TRPCError {
  return dpopNotAuthenticatedError(DPOP_READING.dpop.mode, DPOP_ALGORITHMS, { scope: ['me'], resourceMetadata });
}

const MALFORMED = Symbol('malformed');

/** The body as JSON, read up to {@link MAX_BODY_BYTES}. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req, MAX_BODY_BYTES, true);
  if (body === BODY_TOO_LARGE || body === CLIENT_GONE) return body;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return MALFORMED;
  }
}

/** The tools a JSON-RPC message (or batch) calls, and whether it holds anything else. */
function callsOf(body: unknown): { tools: ToolName[]; others: boolean } {
  const messages = Array.isArray(body) ? body : [body];
  // Each tool once, however often a batch calls it: its gate verifies the token again.
  const tools = new Set<ToolName>();
  let calls = 0;
  for (const message of messages) {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
    if (method === 'tools/call' && typeof params?.name === 'string' && Object.hasOwn(TOOLS, params.name)) {
      tools.add(params.name as ToolName);
      calls++;
    }
  }
  return { tools: [...tools], others: calls < messages.length };
}

function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Readonly<Record<string, string>> = {}): void {
  const text = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers }).end(text);
}
