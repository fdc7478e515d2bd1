/**
 * The fetch entry runs where fetch handlers run: the function of `app/worker.ts` (a reader with
 * `jwtVerifier`, the REST and tRPC fetch handlers) bundled from the built packages, served by
 * Vercel's edge-runtime (a V8 context with the web APIs only), and called over HTTP. Its key set
 * is served by this test on loopback.
 */
import { createHash } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForTheEdge } from './bundle.js';
import { serveEdgeFunction, type EdgeFunction } from './edge-function.js';

let edge: EdgeFunction;
let sign: EdgeFunction['sign'];

beforeAll(async () => {
  edge = await serveEdgeFunction(await bundleForTheEdge(new URL('app/worker.ts', import.meta.url).pathname));
  sign = edge.sign;
}, 30_000);

afterAll(() => edge?.close());

const call = (path: string, token: string, init: RequestInit = {}) =>
  fetch(new URL(path, edge.url), { ...init, headers: { ...init.headers, authorization: `Bearer ${token}` } });

/** A DPoP client's key, and proofs it signs (or another key signs, claiming it). */
async function dpopClient() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const other = await generateKeyPair('ES256');
  const jwk: JWK = await exportJWK(publicKey);
  const proof = (url: string, token: string, signer: CryptoKey = privateKey) =>
    new SignJWT({ htm: 'GET', htu: url, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID(), ath: createHash('sha256').update(token).digest('base64url') })
      .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk })
      .sign(signer);
  return { jkt: await calculateJwkThumbprint(jwk, 'sha256'), proof, otherKey: other.privateKey };
}

describe('the fetch entry inside edge-runtime', () => {
  it('is served by the edge runtime itself', async () => {
    const response = await fetch(new URL('/api/runtime', edge.url));
    expect(await response.json()).toBe('edge-runtime');
  });

  it.each([
    ['REST', '/api/me', (data: unknown) => data],
    ['tRPC', '/trpc/me', (data: unknown) => ({ result: { data } })],
  ])('%s: a good token is a 200, with the principal its key set verified', async (_face, path, answered) => {
    const response = await call(path, await sign('me'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(answered({ subject: 'alice', scopes: ['me'] }));
  });

  it.each(['/api/me', '/trpc/me'])('%s: a bad token is a 401 invalid_token', async (path) => {
    const forged = `${(await sign('me')).slice(0, -4)}AAAA`;
    for (const token of ['not-a-jwt', forged]) {
      const response = await call(path, token);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
    }
  });

  it.each(['/api/admin', '/trpc/admin'])('%s: a token without the scope is a 403 insufficient_scope', async (path) => {
    const response = await call(path, await sign('me'));
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="admin"');
  });

  it('REST: a form body goes through the body policy on the edge too', async () => {
    const response = await call('/api/rename', await sign('me'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Alice',
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toBe('alice is now Alice');
  });

  it('a cacheVerifier(jwtVerifier) verifies a token once, then answers it from its cache (keyed by WebCrypto: no Node builtins here)', async () => {
    const token = await sign('me');
    const first = await call('/api/cached', token);
    expect(first.status).toBe(200);
    const { verifications, nodeBuiltins } = (await first.json()) as { verifications: number; nodeBuiltins: boolean };
    expect(nodeBuiltins).toBe(false);
    // The same token again, on either face: the cache answers, the verifier is not asked.
    const again = await call('/api/cached', token);
    expect(await again.json()).toEqual({ subject: 'alice', verifications, nodeBuiltins: false });
    const onTrpc = await call('/trpc/cached', token);
    expect(await onTrpc.json()).toEqual({ result: { data: { subject: 'alice', verifications, nodeBuiltins: false } } });
    // Another token is verified.
    const other = await call('/api/cached', await sign('me'));
    expect(await other.json()).toEqual({ subject: 'alice', verifications: verifications + 1, nodeBuiltins: false });
  });

  it.each([
    ['REST', '/api/bound', (data: unknown) => data],
    ['tRPC', '/trpc/bound', (data: unknown) => ({ result: { data } })],
  ])('%s: a DPoP-bound token is a 200 with its proof, checked by WebCrypto, and a 401 with a forged one', async (_face, path, answered) => {
    const client = await dpopClient();
    const token = await sign('me', { cnf: { jkt: client.jkt } });
    const url = new URL(path, edge.url).href;
    const headers = (proof: string) => ({ authorization: `DPoP ${token}`, dpop: proof });
    const accepted = await fetch(url, { headers: headers(await client.proof(url, token)) });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual(answered({ subject: 'alice', jkt: client.jkt }));
    const forged = await fetch(url, { headers: headers(await client.proof(url, token, client.otherKey)) });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_dpop_proof", error_description="The DPoP proof signature or key is invalid"/);
  });
});
