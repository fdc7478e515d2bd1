/**
 * docs/contract.md#dpop: the URL a proof's `htu` must name is the request's path under the
 * reader's `origin`, whatever the path starts with. A request target `//other.example/trpc/me`
 * is routed by tRPC to `me`; resolved against the origin it would name the host `other.example`,
 * and a proof made for that host would pass here.
 */
import { initTRPC } from '@trpc/server';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer } from '../../src/index.js';
import { dpopProofVerifier } from '../../src/dpop/index.js';
import { requestTarget } from '../../src/dpop/request-target.js';
import { verifyRequestOf } from '../../src/readers/verify-request.js';
import { proofKey, signProof, type ProofKey } from '../support/dpop-proofs.js';
import { ADAPTERS, serveRouter, type RunningServer } from '../support/serve.js';
import { calculateJwkThumbprint } from 'jose';

const ORIGIN = 'https://api.example.test';

describe('the URL a proof must name', () => {
  it.each([
    ['//other.example/trpc/me', `${ORIGIN}/trpc/me`],
    ['/..//a.b/token', `${ORIGIN}//a.b/token`],
    ['https://api.example.test//a.b/me', `${ORIGIN}//a.b/me`],
    ['http://127.0.0.1:3000//a.b/me?x=1', `${ORIGIN}//a.b/me`],
  ])('of the target %s is %s: the path under the origin, never a host of the path', (target, expected) => {
    expect(requestTarget({ req: { method: 'GET', url: target } }, ORIGIN)?.url).toBe(expected);
    const seen = verifyRequestOf({ ctx: { req: { method: 'GET', url: target } } }, { host: 'evil.example' }, ORIGIN).url;
    expect(new URL(seen).origin).toBe(ORIGIN);
  });

  it('of a Node target without an origin option is under the Host header, never a host of the path', () => {
    expect(verifyRequestOf({ ctx: { req: { method: 'GET', url: '//other.example/me' } } }, { host: 'api.example.test' }, undefined).url).toBe('http://api.example.test/me');
  });
});

describe.each(ADAPTERS)('a DPoP reader over the %s adapter, sent a path that starts with //', (adapter) => {
  let key: ProofKey;
  let server: RunningServer;
  beforeAll(async () => {
    key = await proofKey();
    const jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
    const t = initTRPC.context<{ req?: unknown }>().create();
    const reader = oauth2PasswordBearer({
      tokenUrl: '/token',
      origin: ORIGIN,
      verify: async () => ({ scopes: [], cnf: { jkt } }),
      dpop: { mode: 'required', proofs: dpopProofVerifier({ algorithms: ['ES256'] }) },
    });
    server = await serveRouter(t.router({ me: t.procedure.use(reader).query(() => 'ok') }), adapter);
  });
  afterAll(() => server.close());

  // The standalone adapter routes `//x/trpc/me` to `me` (the URL's host is `x`); the fetch
  // adapter cuts `/trpc` off `//a.b/me` by length and routes it to `me` too.
  const target = adapter === 'standalone' ? { path: '//other.example/trpc/me', foreign: 'https://other.example/trpc/me' } : { path: '//a.b/me', foreign: 'https://a.b/me' };
  // node:http sends `path` as it is (fetch would resolve it against the origin first).
  const send = async (htu: string) => {
    const proof = await signProof(key, { method: 'GET', url: htu, accessToken: 'tok' });
    const { port } = new URL(server.url);
    return new Promise<{ status: number; challenge: string | undefined }>((resolve, reject) => {
      const sent = request({ host: '127.0.0.1', port, path: target.path, headers: { authorization: 'DPoP tok', dpop: proof } }, (res) => {
        res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, challenge: res.headers['www-authenticate'] }));
      });
      sent.on('error', reject).end();
    });
  };

  it('refuses a proof made for the host the path names', async () => {
    const answer = await send(target.foreign);
    expect(answer.status).toBe(401);
    expect(answer.challenge).toContain('The DPoP proof htu does not match the request URL');
  });

  it('accepts the proof that names the path, the way the adapter routes it, under the origin', async () => {
    const routed = adapter === 'standalone' ? `${ORIGIN}/trpc/me` : `${ORIGIN}//a.b/me`;
    expect((await send(routed)).status).toBe(200);
  });
});
