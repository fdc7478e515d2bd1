// The demo as an MCP server, driven by the MCP TypeScript SDK's own client: Streamable HTTP and
// its OAuth client support, against the demo's authorization server (oidc-provider, resource
// indicators), the login form filled over HTTP as a person would
// (docs/contract.md#protected-resource-metadata, docs/contract.md#challenges).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { completeAuthorization } from '../support/authorization-code.js';
import { finishStepUpToItems, MCP_REDIRECT_URI, TestOAuthClient } from '../support/mcp-oauth-client.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

const demo = demoForThisFile();
const ALICE = { username: 'alice', password: 'wonderland' };

/** Every exchange the SDK makes, in order. */
interface Seen {
  method: string;
  url: string;
  status: number;
  challenge: string | null;
}

describe('a real MCP client', () => {
  it(
    'finds the authorization server from a 401, logs in with PKCE and resource, calls a tool, and steps up on a 403',
    async () => {
      const mcpUrl = new URL(`${demo.url}/mcp`);
      const metadataUrl = `${demo.url}/.well-known/oauth-protected-resource/mcp`;
      const seen: Seen[] = [];
      const recording: typeof fetch = async (input, init) => {
        const response = await fetch(input, init);
        const url = input instanceof Request ? input.url : String(input);
        seen.push({ method: init?.method ?? (input instanceof Request ? input.method : 'GET'), url, status: response.status, challenge: response.headers.get('www-authenticate') });
        return response;
      };
      const oauth = new TestOAuthClient();
      const connect = async () => {
        const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth, fetch: recording });
        const client = new Client({ name: 'test', version: '1.0.0' });
        await client.connect(transport);
        return { client, transport };
      };
      const login = async () => {
        const redirect = await completeAuthorization(oauth.authorizationUrl!.href, ALICE, MCP_REDIRECT_URI);
        return redirect.searchParams.get('code')!;
      };

      // 1. No token: 401 pointing at the metadata, which names the authorization server.
      const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: oauth, fetch: recording });
      await expect(new Client({ name: 'test', version: '1.0.0' }).connect(first)).rejects.toThrow(UnauthorizedError);
      expect(seen[0]).toMatchObject({ method: 'POST', url: mcpUrl.href, status: 401, challenge: `Bearer scope="me", resource_metadata="${metadataUrl}", DPoP scope="me", resource_metadata="${metadataUrl}", algs="ES256 EdDSA Ed25519 PS256 RS256"` });
      expect(seen.find((exchange) => exchange.url === metadataUrl)?.status).toBe(200);
      // RFC 8414 §3.1's path for the issuer `…/oidc`, the first the client asks.
      expect(seen.some((exchange) => exchange.url.startsWith(`${demo.url}/.well-known/oauth-authorization-server/oidc`) && exchange.status === 200)).toBe(true);
      const metadata = await (await fetch(metadataUrl)).json();
      expect(metadata).toMatchObject({ resource: mcpUrl.href, authorization_servers: [`${demo.url}/oidc`], scopes_supported: ['me', 'items'], bearer_methods_supported: ['header'] });

      // 2. Authorization code + PKCE, for the MCP resource (RFC 8707), with the scope the 401 named.
      const authorize = oauth.authorizationUrl!;
      expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorize.searchParams.get('resource')).toBe(mcpUrl.href);
      expect(authorize.searchParams.get('scope')).toBe('me');
      await first.finishAuth(await login());
      const granted = decodeJwt(oauth.tokens()!.access_token);
      expect(granted).toMatchObject({ aud: mcpUrl.href, scope: 'me', sub: 'alice' });

      // 3. A tool: it calls the demo's users.me with the same token, through the same readers.
      const { client, transport } = await connect();
      const whoami = await client.callTool({ name: 'whoami' });
      expect(JSON.parse((whoami.content as { text: string }[])[0]!.text)).toMatchObject({ username: 'alice' });

      // 4. A tool whose procedure needs a scope the token lacks: 403 naming every scope it needs.
      seen.length = 0;
      await expect(client.callTool({ name: 'my_items' })).rejects.toThrow(UnauthorizedError);
      expect(seen[0]).toMatchObject({
        method: 'POST',
        status: 403,
        challenge: `Bearer error="insufficient_scope", scope="me items", resource_metadata="${metadataUrl}"`,
      });
      // 5. The client steps up: the user is asked again for those scopes, and the call succeeds.
      await finishStepUpToItems(client, transport, oauth, login, mcpUrl);
    },
    TEST_TIMEOUT_MS * 3,
  );

  it("refuses, 401 invalid_token pointing at the metadata, a malformed token and the API's own password-flow token", async () => {
    const login = await fetch(`${demo.url}/api/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username: 'alice', password: 'wonderland', scope: 'me items' }),
    });
    const { access_token: apiToken } = (await login.json()) as { access_token: string };
    for (const token of ['not-a-token', apiToken]) {
      const response = await fetch(`${demo.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(
        /^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/,
      );
    }
  }, TEST_TIMEOUT_MS);
});
