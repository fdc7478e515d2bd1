// The MCP endpoint answers its reader's failures with their HTTP status: a refusal with its
// challenge, a verifier that cannot reach its authorization server with 503 (the token may be
// fine: neither a 401 nor a 500), a verifier's own fault with 500. The token is checked before
// the body is read: a request without a valid one is a 401 whatever its body.
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { VerifierUnavailableError, verifierUnavailableError, type AudienceBoundVerifier, type JwtPrincipal } from '@trpc-oauth2/jwt';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Services } from '../../src/api/trpc.js';
import { createMcpEndpoint, mcpResource } from '../../src/mcp/mcp-server.js';

const RESOURCE = mcpResource('https://demo.example');
/** What the verifier answers: throws, or a principal. */
let failure: () => JwtPrincipal;
const verify: AudienceBoundVerifier<JwtPrincipal> = Object.assign(async () => failure(), { audience: [RESOURCE] as [string] });
const mcp = createMcpEndpoint({
  resource: RESOURCE,
  issuer: 'https://demo.example/oidc',
  verify,
  // The user every accepted token here names exists.
  services: { users: { find: async (username: string) => ({ username }) } } as unknown as Services,
  clientAddress: () => '127.0.0.1',
});

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => void mcp.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => vi.restoreAllMocks());

const call = async () => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: 'Bearer some.token.here', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.json() };
};

describe("the MCP endpoint's answer when its reader fails", () => {
  it('the resource is the one given, canonical, and the metadata names it', () => {
    expect(mcpResource('HTTPS://Demo.Example:443')).toBe('https://demo.example/mcp');
    expect(mcp.resource).toBe('https://demo.example/mcp');
    expect(mcp.metadata).toMatchObject({ resource: 'https://demo.example/mcp', resource_documentation: 'https://demo.example/docs' });
    expect(mcp.metadataPath).toBe('/.well-known/oauth-protected-resource/mcp');
  });

  it('a refused token: 401 invalid_token with the challenge naming the metadata', async () => {
    failure = () => {
      throw invalidTokenError('Expired');
    };
    const answer = await call();
    expect(answer.status).toBe(401);
    expect(answer.challenge).toBe('Bearer error="invalid_token", error_description="Expired", resource_metadata="https://demo.example/.well-known/oauth-protected-resource/mcp"');
  });

  it('a verifier that cannot reach its key set: 503, logged without the token', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    failure = () => {
      throw verifierUnavailableError(new VerifierUnavailableError('ERR_JWKS_UNAVAILABLE', 'The key set timed out'));
    };
    const answer = await call();
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ jsonrpc: '2.0', error: { code: -32603, message: 'Service unavailable: try again later' }, id: null });
    expect(log.mock.calls.flat().join('\n')).toContain('VerifierUnavailableError (ERR_JWKS_UNAVAILABLE)');
    expect(log.mock.calls.flat().join('\n')).not.toContain('some.token.here');
  });

  it("a verifier's own fault: 500, its message kept out of the answer", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    failure = () => {
      throw new Error('secret detail');
    };
    const answer = await call();
    expect(answer.status).toBe(500);
    expect(JSON.stringify(answer.body)).not.toContain('secret detail');
  });
});

describe('the MCP endpoint checks the token before it reads the body', () => {
  /** POSTs `size` bytes of `fill` to /mcp in 64 KiB chunks (chunked when `chunked`), and reads the answer. */
  const post = (authorization: string | undefined, size: number, fill = ' ', chunked = false) =>
    new Promise<{ status: number; challenge: string | undefined; body: string }>((resolve, reject) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      if (authorization !== undefined) headers.authorization = authorization;
      if (!chunked) headers['content-length'] = String(size);
      const req = request(url, { method: 'POST', headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, challenge: res.headers['www-authenticate'] as string | undefined, body }));
      });
      // The server stops reading once it answered: what is left of the body may not be sent.
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, fill);
      let sent = 0;
      const pump = () => {
        while (sent < size && !req.destroyed) {
          const part = chunk.subarray(0, Math.min(chunk.length, size - sent));
          sent += part.length;
          if (!req.write(part)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
  const refuse = () => {
    throw invalidTokenError('Expired');
  };
  const principal: JwtPrincipal = { subject: 'alice', scopes: ['me'], expiresAt: Math.floor(Date.now() / 1000) + 600, claims: {} };

  it('no token, or a refused one, with a body that is no JSON: 401 with the challenge, never the 400 of a parse error', async () => {
    failure = refuse;
    for (const authorization of [undefined, 'Bearer some.token.here']) {
      const answer = await post(authorization, 100, '{');
      expect(answer.status).toBe(401);
      expect(answer.challenge).toContain('resource_metadata="https://demo.example/.well-known/oauth-protected-resource/mcp"');
    }
  });

  it('no token, with a body past the limit (declared or chunked): 401, not 413, and the client gets it', async () => {
    failure = refuse;
    for (const chunked of [false, true]) {
      const answer = await post(undefined, 4 * 1024 * 1024, ' ', chunked);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Not authenticated' }, id: null });
    }
  });

  it('a client that leaves before its body is sent: no answer, and no fault (with a valid token or none)', async () => {
    const handled = vi.fn();
    const faults: unknown[] = [];
    const observed = createServer((req, res) => void mcp.handle(req, res).then(handled, (error: unknown) => faults.push(error)));
    await new Promise<void>((resolve) => observed.listen(0, '127.0.0.1', resolve));
    try {
      for (const answer of [refuse, () => principal]) {
        failure = answer;
        await new Promise<void>((resolve, reject) => {
          const socket = connect((observed.address() as AddressInfo).port, '127.0.0.1', () => {
            socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer some.token.here\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"jsonrpc":');
            setTimeout(() => socket.resetAndDestroy(), 100);
          });
          socket.on('close', () => resolve());
          socket.on('error', reject);
        });
      }
      await vi.waitFor(() => expect(handled).toHaveBeenCalledTimes(2));
      expect(faults).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => observed.close(() => resolve()));
    }
  });

  // A client sends its whole body, as fetch does, and keeps its connection for the next request.
  // Reading stopped at the limit must leave the connection whole: a request destroyed mid-body
  // took the connection along, and its answer was lost (a reset) or never came (the next
  // request on that connection hung).
  it('a body past the limit sent whole, request after request on kept-alive connections: every answer arrives', async () => {
    const body = ' '.repeat(200 * 1024);
    const statuses: (number | string)[] = [];
    for (let round = 0; round < 12; round++) {
      failure = round % 2 === 0 ? refuse : () => principal;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { authorization: 'Bearer some.token.here', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body,
          signal: AbortSignal.timeout(5_000),
        });
        await response.text();
        statuses.push(response.status);
      } catch (error) {
        statuses.push(String((error as Error).cause ?? (error as Error).name));
      }
    }
    expect(statuses).toEqual(Array.from({ length: 12 }, (_, round) => (round % 2 === 0 ? 401 : 413)));
  }, 90_000);

  it('a valid token: the body is read then, its faults answered as before (400 parse error, 413 past the limit)', async () => {
    failure = () => principal;
    expect((await post('Bearer some.token.here', 100, '{')).status).toBe(400);
    expect((await post('Bearer some.token.here', 4 * 1024 * 1024, ' ', true)).status).toBe(413);
  });
});
