import { passwordRequestForm } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import superjson, { type SuperJSONResult } from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { URLENCODED } from '../../src/index.js';
import { TRPC_FACES, routeOf, serveFaces, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req?: unknown }>().create({ transformer: superjson });
const router = t.router({
  token: t.procedure.input(passwordRequestForm).mutation(({ input }) => ({ username: input.username, scopes: input.scopes, at: new Date(0) })),
});

let servers: Record<(typeof TRPC_FACES)[number], RunningFace>;
beforeAll(async () => {
  servers = await serveFaces(router, TRPC_FACES, { maxBodySize: 100 });
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const post = async (server: RunningFace, form: string) => {
  const response = await fetch(routeOf(server, 'token').url, { method: 'POST', headers: { 'content-type': URLENCODED }, body: form });
  // tRPC serialises `result.data` and `error` each with the transformer.
  const body = (await response.json()) as { result?: { data: SuperJSONResult }; error?: SuperJSONResult };
  return {
    status: response.status,
    data: body.result && superjson.deserialize<unknown>(body.result.data),
    error: body.error && superjson.deserialize<{ message: string; data: { code: string } }>(body.error),
  };
};

describe('a urlencoded body on a router with a transformer (superjson)', () => {
  it.each(TRPC_FACES)('%s: reaches the input parser through the transformer', async (face) => {
    const { status, data } = await post(servers[face], 'username=alice&password=s3cret&scope=me+items');
    expect(status).toBe(200);
    expect(data).toEqual({ username: 'alice', scopes: ['me', 'items'], at: new Date(0) });
  });

  it.each(TRPC_FACES)('%s: a refused body is answered in the transformer\'s shape', async (face) => {
    const { status, error } = await post(servers[face], `username=${'a'.repeat(100)}&password=x`);
    expect(status).toBe(413);
    expect(error?.message).toBe('Request body larger than 100 bytes');
    expect(error?.data.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
