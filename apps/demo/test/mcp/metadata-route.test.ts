/**
 * The MCP resource's metadata (RFC 9728 §3.1) at its path-aware well-known URL, answered as the
 * library's handlers answer theirs (docs/contract.md#protected-resource-metadata): 200 to GET and
 * HEAD, 204 to a CORS preflight (any header allowed), 405 with `Allow` to anything else,
 * cacheable, from any origin.
 */
import { describe, expect, it, vi } from 'vitest';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();
const path = '/.well-known/oauth-protected-resource/mcp';

describe("the MCP resource's metadata", () => {
  it.each([
    ['GET', 200],
    ['HEAD', 200],
    ['OPTIONS', 204],
    ['POST', 405],
    ['DELETE', 405],
  ] as const)('answers %s with %i', async (method, status) => {
    const response = await fetch(`${demo.url}${path}`, { method, ...(method === 'POST' ? { body: '{}' } : {}) });
    const text = await response.text();
    expect(response.status).toBe(status);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe('public, max-age=3600');
    if (status === 405) expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    // A browser's MCP client sends `MCP-Protocol-Version`, which the preflight must allow.
    if (method === 'OPTIONS') expect(response.headers.get('access-control-allow-headers')).toBe('*');
    if (method === 'GET') expect(JSON.parse(text)).toMatchObject({ resource: `${demo.url}/mcp` });
    else expect(status === 405 ? JSON.parse(text) : text).toEqual(status === 405 ? { message: 'Method not allowed', code: 'METHOD_NOT_SUPPORTED' } : '');
  });
});
