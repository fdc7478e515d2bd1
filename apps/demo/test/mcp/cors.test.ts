/**
 * The MCP endpoint for a browser's MCP client on another origin (the MCP Inspector): its CORS
 * preflight is answered with every header the client sends, `Authorization` among them (which a
 * `*` would not allow), and every answer is readable from any origin with the `WWW-Authenticate`
 * its discovery starts from (docs/contract.md#challenges), as the metadata is
 * (docs/contract.md#protected-resource-metadata).
 */
import { describe, expect, it, vi } from 'vitest';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();
const ORIGIN = 'http://localhost:6274';
// What @modelcontextprotocol/sdk's Streamable HTTP client sends, a DPoP proof included.
const CLIENT_HEADERS = ['authorization', 'content-type', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id', 'dpop'];
const list = (value: string | null) => (value ?? '').split(',').map((item) => item.trim().toLowerCase());

describe('the MCP endpoint, from another origin', () => {
  it.each(['POST', 'GET', 'DELETE'])('answers the preflight of a %s with 204, allowing it and every header the client sends', async (method) => {
    const response = await fetch(`${demo.url}/mcp`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': CLIENT_HEADERS.join(',') },
    });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    // Bearer tokens travel in a header: nothing of the browser's (cookies) is let through.
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(list(response.headers.get('access-control-allow-methods'))).toContain(method.toLowerCase());
    expect(list(response.headers.get('access-control-allow-headers'))).toEqual(expect.arrayContaining(CLIENT_HEADERS));
  });

  it("exposes the 401's WWW-Authenticate, DPoP-Nonce and Mcp-Session-Id", async () => {
    const response = await fetch(`${demo.url}/mcp`, {
      method: 'POST',
      headers: { origin: ORIGIN, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
    });
    expect(response.status).toBe(401);
    const metadata = `${demo.url}/.well-known/oauth-protected-resource/mcp`;
    expect(response.headers.get('www-authenticate')).toBe(`Bearer scope="me", resource_metadata="${metadata}", DPoP scope="me", resource_metadata="${metadata}", algs="ES256 EdDSA Ed25519 PS256 RS256"`);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    // The nonce a DPoP client is asked for (`use_dpop_nonce`) is read from another origin too.
    expect(list(response.headers.get('access-control-expose-headers'))).toEqual(expect.arrayContaining(['www-authenticate', 'dpop-nonce', 'mcp-session-id']));
  });

  it('makes its 405 to a GET readable too', async () => {
    const response = await fetch(`${demo.url}/mcp`, { headers: { origin: ORIGIN, authorization: 'Bearer not-a-token' } });
    expect(response.status).toBe(405);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });
});

// The authorization server's token endpoint, called from a page: a public client's own origin
// (one of its redirect URIs') may read the answer; any other origin is refused, and reads nothing.
describe("the authorization server's token endpoint, from a page", () => {
  const tokenRequest = (origin: string) =>
    fetch(`${demo.url}/oidc/token`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'swagger-ui', code: 'no-such-code', code_verifier: 'x'.repeat(43), redirect_uri: `${demo.url}/docs/oauth2-redirect.html` }),
    });

  it("answers a public client from the origin of one of its redirect URIs, readable there", async () => {
    const own = `http://localhost:${new URL(demo.url).port}`;
    const response = await tokenRequest(own);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
    expect(response.headers.get('access-control-allow-origin')).toBe(own);
  });

  it.each(['https://evil.example', 'null'])('refuses the same request from %s, and lets it read nothing', async (origin) => {
    const response = await tokenRequest(origin);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});
