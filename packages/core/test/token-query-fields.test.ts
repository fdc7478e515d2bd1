/**
 * docs/contract.md#token-responses: a field the token or revocation endpoint reads, in the URL's
 * query, is 400 invalid_request (RFC 6749 §2.3.1: client credentials MUST NOT be in the request
 * URI), refused by the endpoint itself from `ctx.req`: on tRPC's adapters used bare too, whatever
 * the body. A query parameter the endpoint does not read is left alone (RFC 6749 §3.2).
 */
import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientCredentials } from '../src/index.js';
import { oauth2ErrorData, revocationEndpoint, tokenEndpoint } from '../src/token-endpoint/index.js';
import { ADAPTERS, serveRouter, type Adapter, type RunningServer } from './support/serve.js';

const seen: ClientCredentials[] = [];
const revoked: string[] = [];
const t = initTRPC.context<{ req: unknown }>().create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });
const authenticateClient = (credentials: ClientCredentials) => {
  seen.push(credentials);
  return { id: credentials.clientId };
};
const router = t.router({
  token: tokenEndpoint(t.procedure, { authenticateClient })
    .grant('password', ({ form }) => ({ access_token: `for ${form.username}`, token_type: 'Bearer' }))
    .grant('refresh_token', () => ({ access_token: 'refreshed', token_type: 'Bearer' }))
    .build(),
  revoke: revocationEndpoint(t.procedure, { authenticateClient, tokenTypes: ['refresh_token'], revoke: ({ form }) => void revoked.push(form.token) }),
});

const FIELDS = { token: ['grant_type', 'username', 'password', 'scope', 'client_id', 'client_secret', 'refresh_token'], revoke: ['token', 'token_type_hint', 'client_id', 'client_secret'] } as const;
const BODIES = { token: { grant_type: 'password', username: 'alice', password: 'wonderland', client_id: 'app', client_secret: 's3cret' }, revoke: { token: 'rt-1', client_id: 'app', client_secret: 's3cret' } };
const value = fc.string({ unit: fc.constantFrom('a', '0', ' ', '+', '&', '=', '%', 'é'), maxLength: 5 });

describe.each(ADAPTERS)('fields in the query on tRPC’s %s adapter, used bare', (adapter: Adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, adapter);
  });
  afterAll(() => server.close());

  const call = async (procedure: 'token' | 'revoke', query: string) => {
    const response = await fetch(`${server.url}/${procedure}${query}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(BODIES[procedure]) });
    return { status: response.status, body: (await response.json()) as { error?: { data?: { oauth2?: unknown } }; result?: unknown } };
  };

  it('refuses any field the endpoint reads, among other parameters, naming it, before the client is authenticated', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('token', 'revoke' as const), fc.nat(), value, fc.array(fc.tuple(fc.constantFrom('tenant', 'x'), value), { maxLength: 2 }), fc.nat(), async (procedure, pick, sent, others, at) => {
        const field = FIELDS[procedure][pick % FIELDS[procedure].length]!;
        seen.length = 0;
        revoked.length = 0;
        const pairs: [string, string][] = [...others];
        pairs.splice(at % (pairs.length + 1), 0, [field, sent]);
        const answer = await call(procedure, `?${new URLSearchParams(pairs)}`);
        expect({ status: answer.status, oauth2: answer.body.error?.data?.oauth2 }).toEqual({
          status: 400,
          oauth2: { code: 'ERR_INVALID_REQUEST', error: 'invalid_request', error_description: `${field}: not allowed in the URL query, send it in the request body`, challenge: null, dpopNonce: null },
        });
        expect([seen, revoked]).toEqual([[], []]);
      }),
      { numRuns: 30 },
    );
  });

  it('serves a request whose query names no field it reads', async () => {
    const answer = await call('token', '?tenant=a&x');
    expect(answer.status).toBe(200);
  });
});
