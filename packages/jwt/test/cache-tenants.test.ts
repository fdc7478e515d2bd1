// A multi-tenant API behind tRPC's standalone adapter: the verifier picks the tenant from the URL
// the client used (its Host), and `cacheVerifier`'s `partition` keeps one tenant's accepted token
// from being answered from the cache for another (docs/contract.md#verified-readers).
import { oauth2PasswordBearer, oauth2ResponseMeta } from '@trpc-oauth2/core';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { request, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheVerifier, type Principal, type TokenVerifier } from '../src/index.js';

// Tenant a's token is `a-token`; no tenant accepts another's.
const tenantVerifier: TokenVerifier<Principal> = async (token, options) => {
  const tenant = new URL(options!.request.url).hostname.split('.')[0];
  if (token !== `${tenant}-token`) throw invalidTokenError('Not issued for this tenant');
  return { scopes: ['me'] };
};

let server: Server | undefined;
afterEach(async () => {
  if (server) await closing(server);
  server = undefined;
});

async function serve(verify: TokenVerifier<Principal>) {
  const t = initTRPC.context<{ req: IncomingMessage }>().create({ isDev: false });
  const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read you' }, verify });
  const router = t.router({ me: t.procedure.use(auth.withScopes('me')).query(({ ctx }) => ctx.principal.scopes) });
  server = createHTTPServer({ router, createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() });
  server.listen(0, '127.0.0.1');
  const port = await listening(server);
  // node's fetch sets Host from the URL: name the tenant in the Host header over a raw request instead.
  return (tenant: string, token: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/me', headers: { host: `${tenant}.example`, authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end();
    });
}

describe('cacheVerifier in front of a verifier that reads the request', () => {
  it('with a partition by host: a token accepted for one tenant is refused for another, every time', async () => {
    const call = await serve(cacheVerifier(tenantVerifier, { maxEntries: 100, partition: ({ request }) => new URL(request.url).host }));
    expect(await call('a', 'a-token')).toBe(200);
    expect(await call('b', 'a-token')).toBe(401);
    expect(await call('a', 'a-token')).toBe(200); // from the cache
    expect(await call('b', 'a-token')).toBe(401);
    expect(await call('b', 'b-token')).toBe(200);
  });

  it('without one, the cache answers for every request alike (why the partition exists)', async () => {
    const call = await serve(cacheVerifier(tenantVerifier, { maxEntries: 100 }));
    expect(await call('a', 'a-token')).toBe(200);
    expect(await call('b', 'a-token')).toBe(200);
  });
});
