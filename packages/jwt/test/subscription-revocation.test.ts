// A subscription protected by an introspection verifier behind a cache ends once the token is
// revoked at the real authorization server (oidc-provider): the reader's recheck asks with
// `fresh: true`, so the cache does not answer for the revoked token (docs/contract.md#subscriptions).
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { initTRPC, tracked } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheVerifier, introspectionVerifier } from '../src/index.js';
import { API, OPAQUE_RESOURCE, startAuthorizationServer, type AuthorizationServer } from '@trpc-oauth2/test-kit/authorization-server';

const RECHECK_INTERVAL = 200;
let as: AuthorizationServer;
beforeAll(async () => {
  as = await startAuthorizationServer();
}, 60_000);
afterAll(() => as.close());

function streams() {
  const verify = cacheVerifier(introspectionVerifier({ endpoint: as.introspectionUrl, clientId: API.id, clientSecret: API.secret, audience: OPAQUE_RESOURCE }), { maxEntries: 100, maxAge: 300 });
  const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { read: 'Read' }, verify, recheckInterval: RECHECK_INTERVAL });
  const t = initTRPC.context<{ headers: Record<string, string> }>().create();
  const router = t.router({
    ticks: t.procedure.use(auth.withScopes('read')).subscription(async function* ({ signal }) {
      for (let n = 1; !signal?.aborted; n++) {
        yield tracked(String(n), n);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  });
  return { verify, caller: (token: string) => t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } }) };
}

describe('a subscription verified by introspection behind a cache', () => {
  it('ends within the recheck interval once the token is revoked at the authorization server', async () => {
    const { verify, caller } = streams();
    const token = await as.token(OPAQUE_RESOURCE, 'read');
    const stream = await caller(token).ticks();
    const received: number[] = [];
    let revokedAt = 0;
    const ended = (async () => {
      try {
        for await (const [, n] of stream as AsyncIterable<[string, number]>) {
          received.push(n);
          if (received.length === 5) {
            revokedAt = Date.now();
            await as.revoke(token);
          }
        }
        return null;
      } catch (error) {
        return { error, at: Date.now() };
      }
    })();
    const outcome = await ended;
    expect(outcome).not.toBeNull();
    expect(outcome!.error).toMatchObject({ code: 'UNAUTHORIZED', cause: { code: 'ERR_INVALID_TOKEN' } });
    expect(outcome!.at - revokedAt).toBeLessThan(RECHECK_INTERVAL + 1000);
    // The cache forgot the revoked token: it is not answered from memory any more.
    expect(verify.peek!(token)).toBeUndefined();
  }, 30_000);
});
