// An MCP client the demo does not know registers itself with the authorization server (RFC 7591
// dynamic client registration at /oidc/reg), as the MCP TypeScript SDK does when it has no client:
// a public client only, sent back to a loopback port or an https URL, and whatever else a
// registration asks for is refused with RFC 7591's errors, never a 5xx.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { completeAuthorization, CookieSession, pkcePair } from '../support/authorization-code.js';
import { finishStepUpToItems, RegisteringOAuthClient, REGISTERING_REDIRECT_URI } from '../support/mcp-oauth-client.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

const demo = demoForThisFile();
const ALICE = { username: 'alice', password: 'wonderland' };

let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  errors = vi.spyOn(console, 'error');
});
afterEach(() => errors.mockRestore());

/** POSTs `body` (an object as JSON, a string as it is) to the registration endpoint. */
async function register(body: unknown, init: RequestInit = {}): Promise<{ status: number; type: string | null; body: any }> {
  const response = await fetch(`${demo.url}/oidc/reg`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not JSON: kept as text for the failure message.
  }
  return { status: response.status, type: response.headers.get('content-type'), body: parsed };
}

const publicClient = (fields: Record<string, unknown> = {}) => ({
  client_name: 'a test client',
  redirect_uris: ['http://127.0.0.1:8765/callback'],
  token_endpoint_auth_method: 'none',
  ...fields,
});

describe('dynamic client registration for MCP clients', () => {
  it('is advertised in the metadata an MCP client reads, beside the API scopes', async () => {
    const metadata = (await (await fetch(`${demo.url}/.well-known/oauth-authorization-server/oidc`)).json()) as Record<string, unknown>;
    expect(metadata['registration_endpoint']).toBe(`${demo.url}/oidc/reg`);
    expect(metadata['scopes_supported']).toEqual(expect.arrayContaining(['openid', 'me', 'items']));
    expect(metadata['code_challenge_methods_supported']).toEqual(['S256']);
  });

  it('may be called from a browser page on another origin (the MCP Inspector): CORS, no credentials', async () => {
    const origin = 'http://localhost:6274';
    const preflight = await fetch(`${demo.url}/oidc/reg`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('content-type');
    const answer = await fetch(`${demo.url}/oidc/reg`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify(publicClient({ redirect_uris: [`${origin}/oauth/callback`] })),
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    expect(answer.headers.getSetCookie()).toEqual([]);
  });

  it(
    "the MCP SDK's own client, with no client information, registers itself, logs alice in, calls a tool, and steps up on a 403",
    async () => {
      const mcpUrl = new URL(`${demo.url}/mcp`);
      const registrations: { status: number; request: unknown }[] = [];
      const recording: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        const url = input instanceof Request ? input.url : String(input);
        if (url === `${demo.url}/oidc/reg`) registrations.push({ status: response.status, request: JSON.parse(String(init?.body)) });
        return response;
      };
      const oauth = new RegisteringOAuthClient();
      expect(oauth.clientInformation()).toBeUndefined();
      const login = async () => (await completeAuthorization(oauth.authorizationUrl!.href, ALICE, REGISTERING_REDIRECT_URI)).searchParams.get('code')!;

      // 1. A 401, then the SDK registers a client (with the scope the 401 named) and sends alice to log in with it.
      const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth, fetch: recording });
      await expect(new Client({ name: 'test', version: '1.0.0' }).connect(first)).rejects.toThrow(UnauthorizedError);
      expect(registrations).toEqual([{ status: 201, request: expect.objectContaining({ scope: 'me', redirect_uris: [REGISTERING_REDIRECT_URI] }) }]);
      const registered = oauth.registered as Record<string, unknown>;
      expect(registered).toMatchObject({
        client_id: expect.any(String),
        client_name: 'an MCP client that registers itself',
        redirect_uris: [REGISTERING_REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        // Asked for a refresh grant, given none: as demo-mcp, a client steps up by asking the user again.
        grant_types: ['authorization_code'],
        response_types: ['code'],
      });
      expect(registered).not.toHaveProperty('client_secret');
      expect(registered).not.toHaveProperty('registration_access_token');
      expect(registered).not.toHaveProperty('scope');
      const authorize = oauth.authorizationUrl!;
      expect(authorize.searchParams.get('client_id')).toBe(registered['client_id']);
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorize.searchParams.get('resource')).toBe(mcpUrl.href);

      // 2. The code for a token of the MCP resource, with the registered client.
      await first.finishAuth(await login());
      expect(oauth.tokens()).not.toHaveProperty('refresh_token');
      expect(decodeJwt(oauth.tokens()!.access_token)).toMatchObject({ aud: mcpUrl.href, scope: 'me', sub: 'alice', client_id: registered['client_id'] });

      // 3. A tool.
      const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth, fetch: recording });
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(transport);
      const whoami = await client.callTool({ name: 'whoami' });
      expect(JSON.parse((whoami.content as { text: string }[])[0]!.text)).toMatchObject({ username: 'alice' });

      // 4. A tool that needs `items`: the registration (made with `me`) does not keep it from being asked for.
      await expect(client.callTool({ name: 'my_items' })).rejects.toThrow(UnauthorizedError);
      await finishStepUpToItems(client, transport, oauth, login, mcpUrl);
      expect(registrations).toHaveLength(1);
      expect(errors).not.toHaveBeenCalled();
    },
    TEST_TIMEOUT_MS * 3,
  );

  it('registers a public client only, and drops what it does not keep (a URL it would fetch, a secret, a scope)', async () => {
    const answer = await register({
      client_name: 'kept',
      redirect_uris: ['https://client.example/callback', 'http://localhost:6274/oauth/callback', 'http://[::1]:9000/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'me items',
      sector_identifier_uri: 'https://127.0.0.1:1/sector.json',
      jwks_uri: 'https://127.0.0.1:1/jwks.json',
      post_logout_redirect_uris: ['https://evil.example/'],
      id_token_signed_response_alg: 'HS256',
      client_secret: 'chosen-by-the-client',
      software_id: 'x'.repeat(100),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body).toMatchObject({ client_name: 'kept', token_endpoint_auth_method: 'none', grant_types: ['authorization_code'], id_token_signed_response_alg: 'ES256' });
    for (const dropped of ['client_secret', 'scope', 'sector_identifier_uri', 'jwks_uri', 'software_id', 'registration_access_token', 'registration_client_uri']) {
      expect(answer.body).not.toHaveProperty(dropped);
    }
    expect(answer.body.post_logout_redirect_uris ?? []).toEqual([]);
    // Without token_endpoint_auth_method (RFC 7591's default is client_secret_basic): a public client still.
    const unsaid = await register({ redirect_uris: ['http://127.0.0.1/cb'] });
    expect(unsaid.status, JSON.stringify(unsaid.body)).toBe(201);
    expect(unsaid.body.token_endpoint_auth_method).toBe('none');
    expect(unsaid.body).not.toHaveProperty('client_secret');
    expect(errors).not.toHaveBeenCalled();
  });

  it.each<[string, number, string, unknown]>([
    ['an http redirect URI on a host that is not loopback', 400, 'invalid_redirect_uri', publicClient({ redirect_uris: ['http://evil.example/callback'] })],
    ['an http redirect URI on a LAN address', 400, 'invalid_redirect_uri', publicClient({ redirect_uris: ['http://192.168.1.10:8080/callback'] })],
    ['a javascript: redirect URI', 400, 'invalid_redirect_uri', publicClient({ redirect_uris: ['javascript:alert(document.cookie)'] })],
    ['a custom-scheme redirect URI', 400, 'invalid_redirect_uri', publicClient({ redirect_uris: ['myapp://callback'] })],
    ['a redirect URI with credentials', 400, 'invalid_redirect_uri', publicClient({ redirect_uris: ['https://user:pass@client.example/cb'] })],
    ['a redirect URI with a fragment', 400, 'invalid_redirect_uri', publicClient({ redirect_uris: ['https://client.example/cb#x'] })],
    ['eleven redirect URIs', 400, 'invalid_redirect_uri', publicClient({ redirect_uris: Array.from({ length: 11 }, (_, i) => `http://127.0.0.1:${9000 + i}/cb`) })],
    ['no redirect URI', 400, 'invalid_redirect_uri', publicClient({ redirect_uris: [] })],
    ['redirect_uris that is not an array', 400, 'invalid_redirect_uri', publicClient({ redirect_uris: 'http://127.0.0.1/cb' })],
    ['a confidential client (client_secret_basic)', 400, 'invalid_client_metadata', publicClient({ token_endpoint_auth_method: 'client_secret_basic' })],
    ['a client authenticating with a key (private_key_jwt)', 400, 'invalid_client_metadata', publicClient({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'https://127.0.0.1:1/jwks' })],
    ['the client_credentials grant', 400, 'invalid_client_metadata', publicClient({ grant_types: ['client_credentials'] })],
    ['the implicit grant and response type', 400, 'invalid_client_metadata', publicClient({ grant_types: ['implicit'], response_types: ['token'] })],
    ['the token response type', 400, 'invalid_client_metadata', publicClient({ response_types: ['code token'] })],
    ['a client name with control characters', 400, 'invalid_client_metadata', publicClient({ client_name: 'Swagger UI\u202e\u0000' })],
    ['a client name of 101 characters', 400, 'invalid_client_metadata', publicClient({ client_name: 'x'.repeat(101) })],
    ['a body that is not JSON', 400, 'invalid_client_metadata', '{"redirect_uris": ['],
    ['a JSON array', 400, 'invalid_client_metadata', '[]'],
    // JSON may spell a lone UTF-16 surrogate (`\ud800`), which the database's JSON cannot hold.
    ['a client name with an unpaired surrogate', 400, 'invalid_client_metadata', '{"redirect_uris": ["http://127.0.0.1/cb"], "client_name": "Swagger UI \\ud800"}'],
    ['a redirect URI with an unpaired surrogate', 400, 'invalid_client_metadata', '{"redirect_uris": ["https://client.example/\\udc00"]}'],
    ['a client_uri with an unpaired surrogate', 400, 'invalid_client_metadata', '{"redirect_uris": ["http://127.0.0.1/cb"], "client_uri": "https://client.example/\\ud83d"}'],
    ['a body larger than 8 KiB', 413, 'invalid_client_metadata', publicClient({ client_uri: `https://client.example/${'x'.repeat(9_000)}` })],
  ])('%s is refused, %i %s, with nothing printed', async (_name, status, error, body) => {
    const answer = await register(body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(status);
    expect(answer.type).toMatch(/^application\/json/);
    expect(answer.body).toMatchObject({ error, error_description: expect.any(String) });
    expect(errors).not.toHaveBeenCalled();
  });

  it('answers at /oidc/reg/ (a trailing slash, the same route) as at /oidc/reg: the size limit and CORS', async () => {
    const at = (body: unknown) =>
      fetch(`${demo.url}/oidc/reg/`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://localhost:6274' }, body: JSON.stringify(body) });
    const large = await at(publicClient({ client_uri: `https://client.example/${'x'.repeat(9_000)}` }));
    expect(large.status).toBe(413);
    expect(await large.json()).toMatchObject({ error: 'invalid_client_metadata' });
    const registered = await at(publicClient());
    expect(registered.status).toBe(201);
    expect(registered.headers.get('access-control-allow-origin')).toBe('*');
  });

  it.each([
    ['20 KiB', 20 * 1024],
    ['200 KiB', 200 * 1024],
  ])('a chunked body of %s (no Content-Length) is refused with a 4xx, nothing printed', async (_name, size) => {
    const json = Buffer.from(JSON.stringify(publicClient({ client_uri: `https://client.example/${'x'.repeat(size)}` })));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < json.length; at += 4096) controller.enqueue(json.subarray(at, at + 4096));
        controller.close();
      },
    });
    const answer = await register('', { body: stream, duplex: 'half' } as RequestInit).catch((error: unknown) => ({ status: 0, type: null, body: String(error) }));
    // The server may answer before it has read the rest, and close: the client then sees the answer or a reset.
    if (answer.status !== 0) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body).toMatchObject({ error: 'invalid_client_metadata' });
    }
    // The next request is served (it once waited on a connection holding the unread rest of the body).
    const next = await fetch(`${demo.url}/oidc/.well-known/openid-configuration`, { signal: AbortSignal.timeout(3_000) });
    expect(next.status).toBe(200);
    expect(errors).not.toHaveBeenCalled();
  });

  it("shows a registered client's name escaped on the login and consent pages, and that it is not one of the demo's own", async () => {
    const name = '<img src=x onerror=alert(1)> "Swagger UI"';
    const { body: registered } = await register(publicClient({ client_name: name, redirect_uris: ['https://client.example/callback'] }));
    const pkce = pkcePair();
    const authorize = `${demo.url}/oidc/auth?${new URLSearchParams({
      response_type: 'code',
      client_id: registered.client_id,
      redirect_uri: 'https://client.example/callback',
      scope: 'me items',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      resource: `${demo.url}/mcp`,
    })}`;
    const escaped = '&lt;img src=x onerror=alert(1)&gt; &quot;Swagger UI&quot;';
    const session = new CookieSession();
    const loginStep = await session.follow(authorize);
    const loginHtml = await loginStep.response.text();
    expect(loginStep.response.status).toBe(200);
    expect(loginHtml).toContain(`<strong>${escaped}</strong> asks you to log in.`);
    expect(loginHtml).not.toContain('<img');
    expect(loginHtml).toContain('id="registered-client"');
    // Its forms may lead back to the client's https redirect URI, and nowhere else.
    expect(loginStep.response.headers.get('content-security-policy')).toContain("form-action 'self' https://client.example http://127.0.0.1:* http://localhost:*;");
    const action = /<form method="post" action="([^"]+\/login)"/.exec(loginHtml)![1]!;
    const consentStep = await session.follow(new URL(action, demo.url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'bob', password: 'builder' }).toString(),
    });
    const consentHtml = await consentStep.response.text();
    expect(consentStep.url).toContain('/interaction/');
    expect(consentHtml).toContain(`<strong>${escaped}</strong> asks to use the demo API as you`);
    expect(consentHtml).not.toContain('<img');
    expect(consentHtml).toContain('id="registered-client"');
    // bob may not have `items`: refused there, as for the demo's own clients.
    expect(consentHtml).toMatch(/<li class="refused"><code>items<\/code>/);
    const consent = /<form method="post" action="([^"]+\/consent)"/.exec(consentHtml)![1]!;
    const back = await session.follow(
      new URL(consent, demo.url).href,
      { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' },
      (url) => url.startsWith('https://client.example/'),
    );
    const code = new URL(back.url).searchParams.get('code');
    expect(code).not.toBeNull();
    const token = await fetch(`${demo.url}/oidc/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: registered.client_id,
        code: code!,
        redirect_uri: 'https://client.example/callback',
        code_verifier: pkce.verifier,
        resource: `${demo.url}/mcp`,
      }),
    });
    const tokens = (await token.json()) as { access_token: string; scope?: string };
    expect(token.status, JSON.stringify(tokens)).toBe(200);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'bob', scope: 'me' });
  });

  it("says so on the signed-out page too, which anyone may open with a registered client's id", async () => {
    const { body: registered } = await register(publicClient({ client_name: 'Swagger UI of the trpc-oauth2 demo' }));
    const page = await fetch(`${demo.url}/oidc/session/end/success?client_id=${encodeURIComponent(registered.client_id)}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('You are signed out of Swagger UI of the trpc-oauth2 demo.');
    expect(html).toContain('id="registered-client"');
    const own = await (await fetch(`${demo.url}/oidc/session/end/success?client_id=swagger-ui`)).text();
    expect(own).toContain('You are signed out of Swagger UI of the trpc-oauth2 demo.');
    expect(own).not.toContain('registered-client');
  });

  it("does not say so of the demo's own MCP client", async () => {
    const pkce = pkcePair();
    const authorize = `${demo.url}/oidc/auth?${new URLSearchParams({
      response_type: 'code',
      client_id: 'demo-mcp',
      redirect_uri: 'http://127.0.0.1:5555/callback',
      scope: 'me',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      resource: `${demo.url}/mcp`,
    })}`;
    const step = await new CookieSession().follow(authorize);
    const html = await step.response.text();
    expect(html).toContain('<strong>MCP clients of the trpc-oauth2 demo</strong> asks you to log in.');
    expect(html).not.toContain('registered-client');
  });
});
