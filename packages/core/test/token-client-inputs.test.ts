/**
 * docs/contract.md#the-password-request-form: the token endpoint's input types admit
 * `URLSearchParams` for `createCaller`; tRPC's client serializes one as JSON (`{}`), so the
 * endpoint names a missing field, while a plain object and a `FormData` are read. Over tRPC's
 * client with superjson, on both tRPC adapters on loopback.
 */
import { createTRPCClient, httpLink, isNonJsonSerializable, splitLink } from '@trpc/client';
import { initTRPC } from '@trpc/server';
import superjson from 'superjson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenEndpoint } from '../src/token-endpoint/index.js';
import { ADAPTERS, serveRouter, type Adapter, type RunningServer } from './support/serve.js';

const t = initTRPC.context<{ req: unknown }>().create({ transformer: superjson });
const router = t.router({
  token: tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: 'public' }) })
    .grant('password', ({ form }) => ({ access_token: `for ${form.username}`, token_type: 'Bearer' }))
    .build(),
});

const fields = { grant_type: 'password', username: 'alice', password: 'wonderland' } as const;

describe.each(ADAPTERS)('the token endpoint through tRPC’s client (%s adapter)', (adapter: Adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, adapter);
  });
  afterAll(() => server.close());

  // FormData goes as multipart (no transformer), everything else as JSON through superjson.
  const client = () =>
    createTRPCClient<typeof router>({
      links: [
        splitLink({
          condition: (op) => isNonJsonSerializable(op.input),
          true: httpLink({ url: server.url, transformer: { serialize: (data: unknown) => data, deserialize: superjson.deserialize } }),
          false: httpLink({ url: server.url, transformer: superjson }),
        }),
      ],
    });

  it('reads a plain object', async () => {
    await expect(client().token.mutate(fields)).resolves.toMatchObject({ access_token: 'for alice' });
  });

  it('reads a FormData', async () => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    await expect(client().token.mutate(form)).resolves.toMatchObject({ access_token: 'for alice' });
  });

  it('gets a URLSearchParams as {} and names the missing field', async () => {
    await expect(client().token.mutate(new URLSearchParams(fields))).rejects.toMatchObject({
      data: { httpStatus: 400 },
      message: expect.stringContaining('grant_type: field required') as unknown,
    });
  });
});
