// A tRPC batch (what httpBatchLink, tRPC's default link, sends) is several calls in one request
// with one token: each call's reader asks the verifier, so without a cache the token's signature is checked
// once per call, and through `cacheVerifier` once for the whole batch (packages/jwt/README.md).
import { oauth2PasswordBearer, oauth2ResponseMeta } from '@trpc-oauth2/core';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import type { IncomingMessage, Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheVerifier, type Principal, type TokenVerifier } from '../src/index.js';

let server: Server | undefined;
afterEach(async () => {
  if (server) await closing(server);
  server = undefined;
});

const t = initTRPC.context<{ req: IncomingMessage }>().create({ isDev: false });

async function batchOfTen(verify: TokenVerifier<Principal>): Promise<string[]> {
  const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read you' }, verify });
  const router = t.router({ echo: t.procedure.use(auth.withScopes('me')).input((value) => String(value)).query(({ input }) => input) });
  server = createHTTPServer({ router, createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() });
  server.listen(0, '127.0.0.1');
  const port = await listening(server);
  // `?batch=1`, the calls' paths joined by commas and their inputs by index: tRPC's batch format.
  const paths = Array.from({ length: 10 }, () => 'echo').join(',');
  const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, index) => [index, String(index)]))));
  const response = await fetch(`http://127.0.0.1:${port}/${paths}?batch=1&input=${input}`, { headers: { authorization: 'Bearer the-token' } });
  expect(response.status).toBe(200);
  const answers = ((await response.json()) as { result: { data: string } }[]).map(({ result }) => result.data);
  return answers;
}

describe('a batch of ten calls with one token', () => {
  it('without a cache: the verifier is asked once per call', async () => {
    let asked = 0;
    const answers = await batchOfTen(async () => (asked++, { scopes: ['me'], expiresAt: Date.now() / 1000 + 60 }));
    expect(answers).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(asked).toBe(10);
  });

  it('through cacheVerifier: the verifier is asked once for the whole batch', async () => {
    let asked = 0;
    const verify = cacheVerifier<Principal>(async () => (asked++, { scopes: ['me'], expiresAt: Date.now() / 1000 + 60 }), { maxEntries: 10 });
    const answers = await batchOfTen(verify);
    expect(answers).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(asked).toBe(1);
  });
});
