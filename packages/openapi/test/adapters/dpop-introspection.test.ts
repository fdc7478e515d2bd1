/**
 * DPoP-bound opaque tokens through introspection, on every face: oidc-provider issues the token
 * bound to a key (RFC 9449), its introspection endpoint answers `token_type: "DPoP"` with
 * `cnf.jkt` (RFC 9449 §6.2), `introspectionVerifier` carries the binding to the DPoP reader, and
 * oauth4webapi's DPoP client makes the proofs (docs/contract.md#dpop,
 * docs/contract.md#verified-readers).
 */
import { oauth2Bearer } from '@trpc-oauth2/core';
import { introspectionVerifier } from '@trpc-oauth2/jwt';
import { API, OPAQUE_RESOURCE, startAuthorizationServer, type AuthorizationServer } from '@trpc-oauth2/test-kit/authorization-server';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DPOP_ORIGIN, dpopPublicUrl, dpopTableRouter, newProofKeyPair, tableDPoP } from '../support/dpop-faces.js';
import { FACES, isRest, routeOf, serveFaces, type Face, type RunningFace } from '../support/faces.js';

let as: AuthorizationServer;
let servers: Record<Face, RunningFace>;
let key: CryptoKeyPair;
let otherKey: CryptoKeyPair;
let bound: string;

beforeAll(async () => {
  // oidc-provider warns about the runtime and its development adapter: expected here, kept quiet.
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  [as, key, otherKey] = await Promise.all([startAuthorizationServer(), newProofKeyPair(), newProofKeyPair()]);
  bound = await as.dpopToken(OPAQUE_RESOURCE, oauth.DPoP({}, key), 'read');
  const verify = introspectionVerifier({ endpoint: as.introspectionUrl, clientId: API.id, clientSecret: API.secret, audience: OPAQUE_RESOURCE, issuer: as.issuer });
  const reader = (mode: 'allowed' | 'required') =>
    oauth2Bearer({
      flows: { clientCredentials: { tokenUrl: `${as.issuer}/token`, scopes: { read: 'Read' } } },
      origin: DPOP_ORIGIN,
      verify,
      dpop: tableDPoP(mode, false),
    });
  servers = await serveFaces(dpopTableRouter((mode) => reader(mode).withScopes('read')), FACES);
});
afterAll(async () => {
  await Promise.all([...Object.values(servers ?? {}).map((server) => server.close()), as?.close()]);
  vi.restoreAllMocks();
});

/** The proof oauth4webapi's DPoP client sends with the token on a GET of the `required` procedure, by `proofKey`. */
async function proofFor(face: Face, proofKey: CryptoKeyPair): Promise<string> {
  let proof: string | null = null;
  await oauth.protectedResourceRequest(bound, 'GET', dpopPublicUrl(servers, face, 'required'), undefined, undefined, {
    DPoP: oauth.DPoP({}, proofKey),
    [oauth.customFetch]: async (_url, init) => {
      proof = new Headers(init.headers).get('dpop');
      return new Response(null, { status: 204 });
    },
  });
  if (proof === null) throw new Error('oauth4webapi made no DPoP proof');
  return proof;
}

describe('DPoP-bound opaque tokens, through introspection', () => {
  it('the authorization server answers token_type DPoP with the key the token is bound to (RFC 9449 §6.2)', async () => {
    const response = await fetch(as.introspectionUrl, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${encodeURIComponent(API.id)}:${encodeURIComponent(API.secret)}`).toString('base64')}` },
      body: new URLSearchParams({ token: bound }),
    });
    const answer = (await response.json()) as { active?: boolean; token_type?: string; cnf?: { jkt?: string } };
    expect(answer).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: expect.stringMatching(/^[\w-]{43}$/) } });
  });

  it.each(FACES)('%s: accepted with a proof by the key it is bound to', async (face) => {
    const response = await fetch(routeOf(servers[face], 'required').url, { headers: { authorization: `DPoP ${bound}`, dpop: await proofFor(face, key) } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { token?: string; result?: { data: { token: string } } };
    expect(isRest(face) ? body : body.result!.data).toEqual({ token: bound });
  });

  it.each(FACES)('%s: refused with a proof by another key, and as a bearer token', async (face) => {
    const url = routeOf(servers[face], 'required').url;
    const otherProof = await fetch(url, { headers: { authorization: `DPoP ${bound}`, dpop: await proofFor(face, otherKey) } });
    expect(otherProof.status).toBe(401);
    expect(otherProof.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_dpop_proof"/);
    // Presented as a bearer token where DPoP is only allowed: no proof, so the binding refuses it.
    const asBearer = await fetch(routeOf(servers[face], 'allowed').url, { headers: { authorization: `Bearer ${bound}` } });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
  });
});
