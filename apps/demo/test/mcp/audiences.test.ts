import { decodeJwt } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { aliceCode, redeemCode } from '../support/authorization-code.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { bearer, request } from '../support/http.js';

// Each resource its own audience (RFC 8707): a token the authorization server issued for the MCP
// endpoint is accepted there and nowhere else, and the API's tokens are refused at the MCP
// endpoint (docs/contract.md#protected-resource-metadata).
vi.setConfig({ testTimeout: 3 * TEST_TIMEOUT_MS });

const demo = demoForThisFile();

async function tokenFor(resource?: string): Promise<string> {
  const fields = await aliceCode(demo.url, resource === undefined ? {} : { resource });
  const { status, body } = await redeemCode(demo.url, { ...fields, ...(resource === undefined ? {} : { resource }) });
  expect(status).toBe(200);
  return body.access_token;
}

const mcpCall = (token: string) =>
  request(`${demo.url}/mcp`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
  });

describe('the API and the MCP endpoint each accept only the tokens issued for them', () => {
  it("an MCP endpoint's token calls its tools, and is refused by the API's REST and tRPC faces", async () => {
    const resource = `${demo.url}/mcp`;
    const token = await tokenFor(resource);
    expect(decodeJwt(token).aud).toBe(resource);
    const tool = await mcpCall(token);
    expect(tool.status).toBe(200);
    expect(JSON.stringify(tool.body)).toContain('alice');
    for (const path of ['/api/users/me', '/trpc/users.me']) {
      const answer = await request(`${demo.url}${path}`, { headers: bearer(token) });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
      // The refusal of the reader whose issuer the token names (the authorization server's), not
      // the password flow's, whose key did not sign it.
      expect(answer.headers.get('www-authenticate')).toContain('error_description="The access token is meant for another audience"');
    }
  });

  it("the API's token is accepted by the API and refused at the MCP endpoint", async () => {
    const token = await tokenFor();
    expect((await request(`${demo.url}/api/users/me`, { headers: bearer(token) })).status).toBe(200);
    const tool = await mcpCall(token);
    expect(tool.status).toBe(401);
    expect(tool.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
