// A principal `cacheVerifier` remembers is answered to every later request with its token: its
// `claims`, and every object inside them, are frozen, so a middleware writing into
// `ctx.principal.claims` on one request cannot change what the next request with the token
// sees (docs/contract.md#verified-readers). Over tRPC's standalone adapter on 127.0.0.1.
import { oauth2PasswordBearer, oauth2ResponseMeta } from '@trpc-oauth2/core';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import type { IncomingMessage, Server } from 'node:http';
import fc from 'fast-check';
import { generateKeyPair, SignJWT } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { cacheVerifier, type Principal, type TokenVerifier } from '../src/index.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';

let server: Server | undefined;
afterEach(async () => {
  if (server) await closing(server);
  server = undefined;
});

/**
 * An API whose `poison` procedure runs `change` on `ctx.principal.claims` (what it throws, on a
 * frozen object, is swallowed: the middleware's own fault) and whose `claims` procedure answers
 * them. Returns a caller of either, with a token.
 */
async function serve(verify: TokenVerifier<Principal & { claims: unknown }>, change: (claims: Record<string, unknown>) => void) {
  const t = initTRPC.context<{ req: IncomingMessage }>().create({ isDev: false });
  const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read you' }, verify });
  const writes = t.middleware(({ ctx, next }) => {
    try {
      change((ctx as unknown as { principal: { claims: Record<string, unknown> } }).principal.claims);
    } catch {
      // a frozen object refuses the write
    }
    return next();
  });
  const router = t.router({
    poison: t.procedure.use(auth).use(writes).query(() => 'ran'),
    claims: t.procedure.use(auth).query(({ ctx }) => ctx.principal.claims),
  });
  server = createHTTPServer({ router, createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() });
  server.listen(0, '127.0.0.1');
  const port = await listening(server);
  return async (procedure: 'poison' | 'claims', token: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/${procedure}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { result?: { data: unknown } };
    return { status: response.status, data: body.result?.data };
  };
}

describe.each(VERIFICATION_PATHS)('cacheVerifier over a jwtVerifier, signature checked by $name', ({ jwtVerifier }) => {
  it('a middleware writing into the claims of one request changes nothing the next request with the token sees', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const payload = {
      iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'me', exp: Math.floor(Date.now() / 1000) + 600,
      roles: ['reader'], tenant: { id: 't1', plan: { tier: 'free' } },
    };
    const token = await new SignJWT(payload).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    const verify = cacheVerifier(jwtVerifier({ key: publicKey, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE }), { maxEntries: 10 });
    const call = await serve(verify, (claims) => {
      (claims.roles as string[]).push('admin');
      ((claims.tenant as { plan: { tier: string } }).plan).tier = 'enterprise';
    });
    const first = await call('poison', token);
    expect(first.status).toBe(200);
    const second = await call('claims', token);
    expect(second).toEqual({ status: 200, data: payload });
  });
});

describe('cacheVerifier over any verifier, whatever claims it answers (property)', () => {
  it('no write into the claims, at any depth, reaches a later request with the same token', async () => {
    const answers = new Map<string, unknown>();
    const verify = cacheVerifier<Principal & { claims: unknown }>(async (token) => ({ scopes: ['me'], claims: structuredClone(answers.get(token)) }), {
      maxEntries: 1_000,
    });
    // Every object and array inside the claims gets a member set, one deleted, and (an array) one pushed.
    const call = await serve(verify, (claims) => {
      const containers: object[] = [];
      const collect = (value: unknown) => {
        if (typeof value !== 'object' || value === null) return;
        containers.push(value);
        for (const entry of Object.values(value)) collect(entry);
      };
      collect(claims);
      for (const container of containers) {
        const attempt = (write: () => void) => {
          try {
            write();
          } catch {
            // refused: frozen
          }
        };
        attempt(() => ((container as Record<string, unknown>).injected = 'by the middleware'));
        const [first] = Object.keys(container);
        if (first !== undefined) attempt(() => delete (container as Record<string, unknown>)[first]);
        if (Array.isArray(container)) attempt(() => container.push('pushed'));
      }
    });
    let count = 0;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 }), async (claims) => {
        const token = `token-${count++}`;
        answers.set(token, claims);
        expect((await call('poison', token)).status).toBe(200);
        const second = await call('claims', token);
        expect(second).toEqual({ status: 200, data: JSON.parse(JSON.stringify(claims)) });
      }),
      { numRuns: 40 },
    );
  });
});

// A `claims` schema may make what no freezing can make read-only (a typed array with elements,
// for which `Object.freeze` throws): the principal is still answered, the rest frozen.
describe('cacheVerifier over claims holding a typed array', () => {
  it('answers the principal, its claims frozen around the typed array', async () => {
    const verify = cacheVerifier<Principal & { claims: { bytes: Uint8Array; roles: string[] } }>(
      async () => ({ scopes: ['me'], claims: { bytes: new Uint8Array([1, 2, 3]), roles: ['reader'] } }),
      { maxEntries: 10 },
    );
    const principal = await verify('token-with-bytes');
    expect(Object.isFrozen(principal.claims)).toBe(true);
    expect(Object.isFrozen(principal.claims.roles)).toBe(true);
    expect([...principal.claims.bytes]).toEqual([1, 2, 3]);
    expect(await verify('token-with-bytes')).toBe(principal);
  });
});
