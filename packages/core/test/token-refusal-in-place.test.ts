/**
 * docs/contract.md#client-authentication: at a token or revocation endpoint served by tRPC's own
 * adapters, the application's `TRPCError` of code `UNAUTHORIZED` is 401 `invalid_client` (with
 * `WWW-Authenticate: Basic` to a Basic client) and one of code `FORBIDDEN` is 400
 * `unauthorized_client` (RFC 6749 §5.2 has no 403): thrown by a grant's handler or
 * `authenticateClient`, as the endpoint answers it; thrown by a middleware of the endpoint's
 * procedure, once `onError` calls `tokenRefusalInPlace` for the endpoint's path, as documented.
 * The answer's status, tRPC code and `data.oauth2` agree.
 */
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { TRPCError, initTRPC } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2ResponseMeta } from '../src/index.js';
import { tokenRefusalInPlace, type HeadersLike } from '../src/protocol.js';
import { oauth2ErrorData, tokenEndpoint, tokenErrorResponse } from '../src/token-endpoint/index.js';

type Where = 'middleware' | 'authenticateClient' | 'handler';
let plan: { where: Where; code: 'UNAUTHORIZED' | 'FORBIDDEN' } | undefined;
const throwIf = (where: Where) => {
  if (plan?.where === where) throw new TRPCError({ code: plan.code, message: `Refused by the ${where}` });
};

const t = initTRPC.context<{ req?: unknown }>().create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });
const router = t.router({
  token: tokenEndpoint(
    t.procedure.use(({ next }) => {
      throwIf('middleware');
      return next();
    }),
    {
      authenticateClient: () => {
        throwIf('authenticateClient');
        return { id: 'app' };
      },
    },
  )
    .grant('client_credentials', () => {
      throwIf('handler');
      return { access_token: 'at', token_type: 'Bearer' };
    })
    .build(),
});

/** The `onError` the contract asks of an application that serves the endpoint on tRPC's adapters. */
const onError = ({ error, path, req }: { error: TRPCError; path?: string; req?: unknown }) => {
  if (path === 'token') tokenRefusalInPlace(error, (req as { headers?: HeadersLike } | undefined)?.headers);
};

type Adapter = 'standalone' | 'fetch';
const servers = {} as Record<Adapter, { url: string; close(): Promise<void> }>;
beforeAll(async () => {
  for (const adapter of ['standalone', 'fetch'] as const) {
    let server: Server;
    if (adapter === 'standalone') {
      server = createHTTPServer({ router, basePath: '/trpc/', createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() as never, onError });
      server.listen(0, '127.0.0.1');
    } else {
      server = serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch: (req) => fetchRequestHandler({ endpoint: '/trpc', req, router, createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() as never, onError }),
      }) as Server;
    }
    const port = await listening(server);
    servers[adapter] = { url: `http://127.0.0.1:${port}/trpc/token`, close: () => closing(server) };
  }
});
afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

describe.each(['standalone', 'fetch'] as const)("the application's UNAUTHORIZED and FORBIDDEN over tRPC's %s adapter", (adapter) => {
  it.each<[Where, 'UNAUTHORIZED' | 'FORBIDDEN', boolean]>([
    ['middleware', 'UNAUTHORIZED', true],
    ['middleware', 'UNAUTHORIZED', false],
    ['middleware', 'FORBIDDEN', true],
    ['authenticateClient', 'UNAUTHORIZED', true],
    ['authenticateClient', 'FORBIDDEN', false],
    ['handler', 'UNAUTHORIZED', false],
    ['handler', 'FORBIDDEN', true],
  ])('a %s that throws %s (Basic credentials: %s)', async (where, code, basic) => {
    plan = { where, code };
    const response = await fetch(servers[adapter].url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(basic ? { authorization: `Basic ${btoa('app:s3cret')}` } : {}) },
      body: JSON.stringify({ grant_type: 'client_credentials' }),
    });
    const body: any = await response.json();
    const client = code === 'UNAUTHORIZED';
    const challenge = client && basic ? 'Basic' : null;
    expect({ status: response.status, challenge: response.headers.get('www-authenticate'), code: body.error.data.code, httpStatus: body.error.data.httpStatus }).toEqual({
      status: client ? 401 : 400,
      challenge,
      code: client ? 'UNAUTHORIZED' : 'BAD_REQUEST',
      httpStatus: client ? 401 : 400,
    });
    expect(body.error.data.oauth2).toMatchObject({ error: client ? 'invalid_client' : 'unauthorized_client', error_description: `Refused by the ${where}`, challenge });
  });
});

describe('tokenErrorResponse of an application refusal', () => {
  it('answers FORBIDDEN as 400 unauthorized_client and UNAUTHORIZED as 401 invalid_client, never a 403', () => {
    expect(tokenErrorResponse(new TRPCError({ code: 'FORBIDDEN', message: 'Not this client' }))).toMatchObject({ status: 400, body: { error: 'unauthorized_client', error_description: 'Not this client' } });
    expect(tokenErrorResponse(new TRPCError({ code: 'UNAUTHORIZED', message: 'Who?' }))).toMatchObject({ status: 401, body: { error: 'invalid_client', error_description: 'Who?' } });
  });
});
