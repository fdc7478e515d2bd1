// The README's example, served over HTTP by tRPC's standalone and fetch adapters, against the real
// authorization server (docs/contract.md#reading-the-authorization-header).
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { oauth2ResponseMeta } from '@trpc-oauth2/core';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { API, JWT_RESOURCE, OPAQUE_RESOURCE, startAuthorizationServer, type AuthorizationServer } from '@trpc-oauth2/test-kit/authorization-server';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = readFileSync(new URL('./readme/example.ts', import.meta.url), 'utf8');

let as: AuthorizationServer;
const servers: Server[] = [];
const bases: Record<'standalone' | 'fetch', string> = { standalone: '', fetch: '' };

beforeAll(async () => {
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  as = await startAuthorizationServer({ accessTokenTTL: 60 });
  process.env.ISSUER = as.issuer;
  process.env.INTROSPECTION_CLIENT_ID = API.id;
  process.env.INTROSPECTION_SECRET = API.secret;
  const { appRouter, server } = await import('./readme/example.js');
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  bases.standalone = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fetchServer = serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (req) => fetchRequestHandler({ endpoint: '', req, router: appRouter, createContext: () => ({ req: req as never }), responseMeta: oauth2ResponseMeta() }),
  }) as Server;
  await new Promise<void>((resolve) => fetchServer.once('listening', resolve));
  servers.push(fetchServer);
  bases.fetch = `http://127.0.0.1:${(fetchServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await as?.close();
  vi.restoreAllMocks();
});
afterEach(() => vi.useRealTimers());

async function call(adapter: keyof typeof bases, path: string, token?: string, method = 'GET') {
  const headers: Record<string, string> = method === 'POST' ? { 'content-type': 'application/json' } : {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${bases[adapter]}/${path}`, { method, headers });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: (await response.json()) as any };
}

describe('the README example', () => {
  it('is this tested file, word for word (but for the import path)', () => {
    const published = example.replace("'../../src/index.js'", "'@trpc-oauth2/jwt'");
    expect(readme).toContain('```ts\n' + published + '```');
  });

  describe.each(['standalone', 'fetch'] as const)('over the %s adapter', (adapter) => {
    it('answers with the verified subject', async () => {
      const answer = await call(adapter, 'whoami', await as.token(JWT_RESOURCE, 'read'));
      expect(answer).toMatchObject({ status: 200, body: { result: { data: 'app' } } });
    });

    it('refuses a scope the token does not grant: 403 insufficient_scope', async () => {
      const answer = await call(adapter, 'write', await as.token(JWT_RESOURCE, 'read'), 'POST');
      expect(answer.status).toBe(403);
      expect(answer.challenge).toBe('Bearer error="insufficient_scope", scope="write"');
    });

    it('answers an opaque token through introspection, and refuses an unknown one', async () => {
      expect(await call(adapter, 'opaque', await as.token(OPAQUE_RESOURCE, 'read'))).toMatchObject({ status: 200, body: { result: { data: 'app' } } });
      const refused = await call(adapter, 'opaque', 'not-an-issued-token');
      expect(refused.status).toBe(401);
      expect(refused.challenge).toBe('Bearer error="invalid_token", error_description="The access token is not active"');
    });

    it('refuses an opaque token on the JWT route: 401 invalid_token', async () => {
      const answer = await call(adapter, 'whoami', await as.token(OPAQUE_RESOURCE, 'read'));
      expect(answer.status).toBe(401);
      expect(answer.challenge).toMatch(/^Bearer error="invalid_token", error_description="/);
    });

    it('refuses no token: 401 Bearer', async () => {
      expect(await call(adapter, 'whoami')).toMatchObject({ status: 401, challenge: 'Bearer' });
    });

    it.each([
      ['a forged token', async () => 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJyb290In0.', 'The access token algorithm is not allowed'],
      ['garbage', async () => 'not-a-jwt', 'The access token is invalid'],
    ])('refuses %s: 401 invalid_token with its description', async (_name, token, description) => {
      const answer = await call(adapter, 'whoami', await token());
      expect(answer.status).toBe(401);
      expect(answer.challenge).toBe(`Bearer error="invalid_token", error_description="${description}"`);
      expect(answer.body.error.message).toBe(description);
    });

    it('refuses an expired token, even one it has cached', async () => {
      const token = await as.token(JWT_RESOURCE, 'read');
      expect((await call(adapter, 'whoami', token)).status).toBe(200);
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 61_000);
      const answer = await call(adapter, 'whoami', token);
      expect(answer.status).toBe(401);
      expect(answer.challenge).toBe('Bearer error="invalid_token", error_description="The access token expired"');
    });
  });

  it('answers 503 when the key set must be fetched and cannot be', async () => {
    await as.rotateKey(); // a new kid: the verifier must fetch the key set again
    as.breakJwks(true);
    try {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.now() + 31_000); // past the default cooldown
      const answer = await call('standalone', 'whoami', await as.token(JWT_RESOURCE, 'read'));
      expect(answer.status).toBe(503);
      expect(answer.challenge).toBeNull();
      expect(answer.body.error).toMatchObject({ message: 'The token verifier is unavailable', data: { code: 'SERVICE_UNAVAILABLE' } });
    } finally {
      as.breakJwks(false);
    }
  });
});
