/**
 * docs/contract.md#token-responses: a grant handler's answer that the endpoint's token response
 * schema refuses is a fault of the server: `server_error`, "The request could not be completed",
 * through `createCaller` and over tRPC's fetch and standalone adapters on loopback, never tRPC's
 * own "Output validation failed"; the fault, naming the field, is the error's cause.
 */
import { TRPCError, initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenEndpoint, tokenErrorResponse, type TokenResponse } from '../src/token-endpoint/index.js';
import { ADAPTERS, mutate, serveOnEveryAdapter, type Adapter, type RunningServer } from './support/serve.js';

const t = initTRPC.context<{ req?: unknown }>().create();

const ANSWERS: Record<string, TokenResponse> = {
  fraction: { access_token: 'a', token_type: 'Bearer', expires_in: 899.5 },
  negative: { access_token: 'a', token_type: 'Bearer', expires_in: -900 },
  huge: { access_token: 'a', token_type: 'Bearer', expires_in: 2 ** 31 },
  whole: { access_token: 'a', token_type: 'Bearer', expires_in: 900 },
};

const router = t.router({
  token: tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }) })
    .grant('client_credentials', ({ form }) => ANSWERS[form.scope]!)
    .build(),
});

const errors: TRPCError[] = [];
let servers: Record<Adapter, RunningServer>;
beforeAll(async () => {
  servers = await serveOnEveryAdapter(router, { onError: ({ error }) => void errors.push(error) });
});
afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

const REFUSED = [
  ['a fraction of a second', 'fraction'],
  ['a negative expires_in', 'negative'],
  ['an expires_in past 2^31 - 1', 'huge'],
] as const;

describe('a grant answer the token response schema refuses, through createCaller', () => {
  it.each(REFUSED)('%s is server_error, its cause naming expires_in', async (_name, scope) => {
    const refused = await router
      .createCaller({})
      .token({ grant_type: 'client_credentials', scope })
      .then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCError);
    expect(refused).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: 'The request could not be completed' });
    expect(((refused as TRPCError).cause as Error).message).toMatch(/: expires_in: /);
    expect(tokenErrorResponse(refused).body).toEqual({ error: 'server_error', error_description: 'The request could not be completed' });
  });

  it('answers whole seconds', async () => {
    expect(await router.createCaller({}).token({ grant_type: 'client_credentials', scope: 'whole' })).toEqual(ANSWERS.whole);
  });
});

describe.each(ADAPTERS)('a grant answer the token response schema refuses, over the %s adapter', (adapter) => {
  it.each(REFUSED)('%s is a 500 whose message is not sent', async (_name, scope) => {
    const reported = errors.length;
    const response = await mutate(servers[adapter], 'token', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', scope }),
    });
    expect(response.status).toBe(500);
    expect(response.body.error).toMatchObject({ message: 'The request could not be completed', data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500 } });
    expect(JSON.stringify(response.body)).not.toContain('Output validation failed');
    expect(errors.slice(reported).at(-1)?.cause?.message).toMatch(/^The client_credentials grant answered what RFC 6749 §5\.1 refuses as a token response: expires_in: /);
  });
});
