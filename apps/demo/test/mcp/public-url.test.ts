// The MCP endpoint of a demo given a public URL (PUBLIC_URL) other than the address it listens
// on: its resource is the public URL plus /mcp, the one string the authorization server issues
// tokens for, its metadata advertises and its reader accepts; its tokens are verified with the key
// in DATA_DIR, so an instance that cannot reach itself through its public URL (`demo.invalid`
// resolves nowhere) still serves them (docs/contract.md#protected-resource-metadata).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../soak/instances.js';
import { CookieSession, pkcePair } from '../support/authorization-code.js';
import { MCP_REDIRECT_URI, TestOAuthClient } from '../support/mcp-oauth-client.js';
import { SERVER_TIMEOUT_MS, startTestDemo, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';

const ALICE = { username: 'alice', password: 'wonderland' };

/** A browser behind the same proxy as {@link Setup.send}: each URL of the public origin goes to the demo. */
class ProxiedSession extends CookieSession {
  constructor(private readonly toDemo: (url: string) => string) {
    super();
  }
  override fetch(url: string, init: RequestInit = {}): Promise<Response> {
    return super.fetch(this.toDemo(url), init);
  }
}

interface Setup {
  demo: TestDemo;
  publicUrl: string;
  /** `fetch` as a client of the public URL does it: through a proxy to the demo when the name resolves nowhere. */
  send: typeof fetch;
  /** A URL of the public origin as the proxy sends it on (the listening address), with a proxy; else `url`. */
  toDemo: (url: string) => string;
  /** Every status an answer of the demo had. */
  statuses: number[];
}

/**
 * A demo whose public URL is `publicUrl(port)` (`port` the one it listens on); `proxy`: the public
 * URL resolves nowhere, so the test's requests for it are sent to the listening address, as a
 * reverse proxy in front would (the demo itself is never given a way to reach it).
 */
function demoBehind(publicUrl: (port: number) => string, proxy: boolean): Setup {
  const setup = { statuses: [] as number[] } as Setup;
  beforeAll(async () => {
    const port = await freePort();
    setup.publicUrl = publicUrl(port);
    setup.demo = await startTestDemo(undefined, { port, publicUrl: setup.publicUrl });
    setup.toDemo = (url) => (proxy && url.startsWith(`${setup.publicUrl}/`) ? `${setup.demo.url}${url.slice(setup.publicUrl.length)}` : url);
    setup.send = async (input, init) => {
      const response = input instanceof Request ? await fetch(new Request(setup.toDemo(input.url), input), init) : await fetch(setup.toDemo(String(input)), init);
      setup.statuses.push(response.status);
      return response;
    };
  }, SERVER_TIMEOUT_MS);
  afterAll(() => setup.demo?.stop(), SERVER_TIMEOUT_MS);
  return setup;
}

/**
 * The authorization pages from `authorizeUrl` to the redirect back to {@link MCP_REDIRECT_URI}, alice
 * logging in and allowing, through `setup`'s proxy when there is one. Returns that redirect.
 */
async function authorizeAsAlice(setup: Setup, authorizeUrl: string): Promise<URL> {
  const session = new ProxiedSession(setup.toDemo);
  const back = (url: string) => url.startsWith(MCP_REDIRECT_URI);
  const form = (fields: Record<string, string>): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  let step = await session.follow(authorizeUrl, {}, back);
  for (let pages = 0; pages < 4 && !back(step.url); pages++) {
    const html = await step.response.text();
    setup.statuses.push(step.response.status);
    const action = /<form method="post" action="([^"]+\/(login|consent))"/.exec(html);
    if (action === null) throw new Error(`no login or consent form at ${step.url}: ${step.response.status} ${html.slice(0, 300)}`);
    step = await session.follow(new URL(action[1]!, step.url).href, form(action[2] === 'login' ? ALICE : {}), back);
  }
  if (!back(step.url)) throw new Error(`did not come back to the client: ${step.url}`);
  return new URL(step.url);
}

/** An access token of the demo's authorization server for alice, for `resource` (the API's when absent), with raw requests. */
async function tokenFor(setup: Setup, resource?: string): Promise<{ token?: string; error?: string }> {
  const issuer = `${setup.publicUrl}/oidc`;
  const pkce = pkcePair();
  const authorize = new URL(`${issuer}/auth`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: 'demo-mcp',
    redirect_uri: MCP_REDIRECT_URI,
    scope: 'me',
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    state: 'x',
    ...(resource === undefined ? {} : { resource }),
  }).toString();
  const back = await authorizeAsAlice(setup, authorize.href);
  const code = back.searchParams.get('code');
  if (code === null) return { error: back.searchParams.get('error') ?? back.href };
  const response = await setup.send(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: 'demo-mcp',
      code,
      redirect_uri: MCP_REDIRECT_URI,
      code_verifier: pkce.verifier,
      ...(resource === undefined ? {} : { resource }),
    }),
  });
  const body = (await response.json()) as { access_token?: string; error?: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return { token: body.access_token! };
}

/** The `whoami` tool called with `token`, at `url` (the public URL's /mcp unless given). */
const mcpCall = (setup: Setup, token: string, url = `${setup.publicUrl}/mcp`) =>
  setup.send(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  });

describe.each([
  { name: 'a public URL on another host name for the same port (http://localhost:<port>)', publicUrl: (port: number) => `http://localhost:${port}`, proxy: false },
  { name: 'a public URL the instance cannot reach (https://demo.invalid)', publicUrl: () => 'https://demo.invalid', proxy: true },
])('the MCP endpoint under $name', ({ publicUrl, proxy }) => {
  const setup = demoBehind(publicUrl, proxy);

  it('advertises PUBLIC_URL/mcp, and a real MCP client logs in for it and calls a tool there', async () => {
    const mcpUrl = `${setup.publicUrl}/mcp`;
    const metadataUrl = `${setup.publicUrl}/.well-known/oauth-protected-resource/mcp`;
    const metadata = await (await setup.send(metadataUrl)).json();
    expect(metadata).toMatchObject({ resource: mcpUrl, authorization_servers: [`${setup.publicUrl}/oidc`], resource_documentation: `${setup.publicUrl}/docs` });
    // The same metadata whichever address it is asked at: it names the public URL, not a Host.
    expect(await (await fetch(`${setup.demo.url}/.well-known/oauth-protected-resource/mcp`)).json()).toEqual(metadata);

    const oauth = new TestOAuthClient();
    const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth, fetch: setup.send });
    await expect(new Client({ name: 'test', version: '1.0.0' }).connect(first)).rejects.toThrow(UnauthorizedError);
    expect(oauth.authorizationUrl!.searchParams.get('resource')).toBe(mcpUrl);
    const back = await authorizeAsAlice(setup, oauth.authorizationUrl!.href);
    await first.finishAuth(back.searchParams.get('code')!);
    expect(decodeJwt(oauth.tokens()!.access_token)).toMatchObject({ aud: mcpUrl, iss: `${setup.publicUrl}/oidc`, sub: 'alice' });

    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth, fetch: setup.send }));
    const whoami = await client.callTool({ name: 'whoami' });
    expect(JSON.parse((whoami.content as { text: string }[])[0]!.text)).toMatchObject({ username: 'alice' });
    await client.close();
  }, 3 * TEST_TIMEOUT_MS);

  it("accepts a token for PUBLIC_URL/mcp at /mcp, and refuses the API's with 401 pointing at the public metadata", async () => {
    const resource = `${setup.publicUrl}/mcp`;
    const { token } = await tokenFor(setup, resource);
    expect(decodeJwt(token!).aud).toBe(resource);
    const accepted = await mcpCall(setup, token!);
    expect(accepted.status).toBe(200);
    expect(JSON.stringify(await accepted.json())).toContain('alice');
    // At the listening address too: the resource is the public URL's, whatever the request's Host.
    expect((await mcpCall(setup, token!, `${setup.demo.url}/mcp`)).status).toBe(200);

    const { token: apiToken } = await tokenFor(setup);
    expect(decodeJwt(apiToken!).aud).toBe('urn:trpc-oauth2:demo:api');
    const refused = await mcpCall(setup, apiToken!);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="${(await refused.json()).error.message}", resource_metadata="${setup.publicUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
  }, 3 * TEST_TIMEOUT_MS);

  it('issues no token for the listening address as the MCP resource: there is one MCP resource, the public one', async () => {
    const listening = `${setup.demo.url}/mcp`;
    expect(listening).not.toBe(`${setup.publicUrl}/mcp`);
    expect(await tokenFor(setup, listening)).toEqual({ error: 'invalid_target' });
  }, 2 * TEST_TIMEOUT_MS);

  it('never answered with a server error', () => {
    expect(setup.statuses.length).toBeGreaterThan(10);
    expect(setup.statuses.filter((status) => status >= 500)).toEqual([]);
  });
});
