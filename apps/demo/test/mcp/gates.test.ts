// What the MCP endpoint lets in. A token is one the procedures its tools call accept: a token
// whose user no longer exists is refused at the endpoint with 401 invalid_token and the challenge
// naming the metadata, as the API refuses it (docs/contract.md#challenges), never a 200 whose
// tool result carries the refusal. A JSON-RPC batch, each of whose tool calls runs a procedure,
// holds at most as many messages as a tRPC batch holds calls (docs/contract.md#body-limits).
import { DEFAULT_MAX_BATCH_SIZE } from '@trpc-oauth2/openapi';
import { describe, expect, it } from 'vitest';
import { demoForThisFile } from '../support/demo-server.js';
import { bearer, request } from '../support/http.js';
import { signMcpToken } from '../support/tokens.js';

const demo = demoForThisFile();

const mcpToken = (sub: string) => signMcpToken(demo, sub);

const post = (token: string, message: object) =>
  request(`${demo.url}/mcp`, {
    method: 'POST',
    headers: { ...bearer(token), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
  });

describe('the MCP endpoint and the user a token names', () => {
  it("calls a tool for a user who exists: the token is the authorization server's, for this resource", async () => {
    const answer = await post(await mcpToken('alice'), { method: 'tools/call', params: { name: 'whoami', arguments: {} } });
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).toContain('alice');
  });

  it.each([
    ['a tool call', { method: 'tools/call', params: { name: 'whoami', arguments: {} } }],
    ['a tool list', { method: 'tools/list' }],
  ])("refuses %s with a token whose user does not exist: 401 invalid_token naming the metadata, as the API does", async (_name, message) => {
    const token = await mcpToken('mallory');
    const answer = await post(token, message);
    expect({ status: answer.status, challenge: answer.headers.get('www-authenticate') }).toEqual({
      status: 401,
      challenge: `Bearer error="invalid_token", error_description="The user of this token no longer exists", resource_metadata="${demo.url}/.well-known/oauth-protected-resource/mcp"`,
    });
  });
});

describe('a JSON-RPC batch at the MCP endpoint', () => {
  const batch = (size: number) =>
    Array.from({ length: size }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }));
  const send = async (token: string, body: unknown) =>
    request(`${demo.url}/mcp`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' },
      body: JSON.stringify(body),
    });

  it(`of ${DEFAULT_MAX_BATCH_SIZE} tool calls is served, every call answered`, async () => {
    const answer = await send(await mcpToken('alice'), batch(DEFAULT_MAX_BATCH_SIZE));
    expect(answer.status).toBe(200);
    expect(answer.body).toHaveLength(DEFAULT_MAX_BATCH_SIZE);
  });

  it(`of more than ${DEFAULT_MAX_BATCH_SIZE} messages is refused 400 before any call runs, as a tRPC batch is`, async () => {
    const answer = await send(await mcpToken('alice'), batch(DEFAULT_MAX_BATCH_SIZE + 1));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
  });
});
