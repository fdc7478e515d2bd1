/**
 * The DPoP table of docs/contract.md#dpop against the real things, on every face (trpc-to-openapi's
 * Node and fetch handlers, tRPC's standalone and fetch adapters): DPoP-bound access tokens a real
 * oidc-provider issues (client credentials, RFC 9068 JWTs with `cnf.jkt`), verified by
 * `jwtVerifier` from its key set, and every proof made by oauth4webapi's DPoP client — one row
 * per case, per face.
 */
import { oauth2Bearer } from '@trpc-oauth2/core';
import { jwtVerifier } from '@trpc-oauth2/jwt';
import { DPOP_TABLE, type DPoPServer, type ProofChange } from '@trpc-oauth2/test-kit';
import { JWT_RESOURCE, startAuthorizationServer, type AuthorizationServer } from '@trpc-oauth2/test-kit/authorization-server';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DPOP_ORIGIN, TABLE_NONCES, dpopPublicUrl, dpopTableRouter, newProofKeyPair, tableDPoP } from '../support/dpop-faces.js';
import { FACES, isRest, routeOf, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const ALGS = 'algs="ES256"';

let as: AuthorizationServer;
let servers: Record<Face, RunningFace>;
let key: CryptoKeyPair;
let otherKey: CryptoKeyPair;
/** The table's tokens: `bound` to `key` by the authorization server, `plain` unbound. */
const tokens: Record<string, string> = {};

function routerFor(issuer: string, jwksUrl: string) {
  const verify = jwtVerifier({ jwksUrl, issuer, audience: JWT_RESOURCE, algorithms: ['RS256'] });
  const reader = (mode: 'allowed' | 'required', withNonces: boolean) =>
    oauth2Bearer({
      flows: { clientCredentials: { tokenUrl: `${issuer}/token`, scopes: { read: 'Read', write: 'Write' } } },
      origin: DPOP_ORIGIN,
      verify,
      dpop: tableDPoP(mode, withNonces),
    });
  return dpopTableRouter((mode, nonces) => reader(mode, nonces).withScopes('read'));
}

beforeAll(async () => {
  [as, key, otherKey] = await Promise.all([startAuthorizationServer(), newProofKeyPair(), newProofKeyPair()]);
  tokens.bound = await as.dpopToken(JWT_RESOURCE, oauth.DPoP({}, key));
  tokens.plain = await as.token(JWT_RESOURCE);
  // A token of this issuer's shape whose signature is not the issuer's.
  tokens.forged = `${tokens.plain.slice(0, tokens.plain.lastIndexOf('.'))}.${'A'.repeat(342)}`;
  servers = await serveFaces(routerFor(as.issuer, as.jwksUrl), FACES);
});
afterAll(async () => {
  await Promise.all([...Object.values(servers ?? {}).map((server) => server.close()), as?.close()]);
});

/**
 * The proof oauth4webapi's DPoP client sends with `token` on a request to `url`, changed as the
 * row says: another key, method, URL or token to hash, another time, the server's nonce or not.
 */
async function proofFor(face: Face, server: DPoPServer, token: string, change: ProofChange): Promise<string> {
  const nonce = server === 'nonces' && !change.noNonce ? await TABLE_NONCES.current() : undefined;
  const handle = oauth.DPoP({}, change.otherKey ? otherKey : key, {
    [oauth.modifyAssertion]: (_header, payload) => {
      if (change.iatOffset !== undefined) payload.iat = (payload.iat as number) + change.iatOffset;
      if (nonce !== undefined) payload.nonce = nonce;
    },
  });
  let proof: string | null = null;
  await oauth.protectedResourceRequest(change.ath ?? token, change.method ?? 'GET', dpopPublicUrl(servers, face, server, change.below), undefined, undefined, {
    DPoP: handle,
    [oauth.customFetch]: async (_url, init) => {
      proof = new Headers(init.headers).get('dpop');
      return new Response(null, { status: 204 });
    },
  });
  if (proof === null) throw new Error('oauth4webapi made no DPoP proof');
  return proof;
}

const rows = FACES.flatMap((face) => DPOP_TABLE.map((row) => ({ face, ...row })));

describe('the DPoP table with oidc-provider tokens and oauth4webapi proofs, on every face', () => {
  it('the authorization server binds its token to the key (cnf.jkt), and the unbound one to none', () => {
    const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { cnf?: { jkt?: string }; aud?: unknown };
    expect(claims(tokens.bound!).cnf?.jkt).toMatch(/^[\w-]{43}$/);
    expect(claims(tokens.plain!).cnf).toBeUndefined();
    expect(claims(tokens.bound!).aud).toBe(JWT_RESOURCE);
  });

  it.each(rows)('$face $server: $name → $status', async ({ face, server, authorization, proof, status, challenge, nonce }) => {
    const [scheme, name] = authorization?.split(' ') ?? [];
    const token = name === undefined ? '' : (tokens[name] ?? name);
    const headers: Record<string, string> = {};
    if (authorization !== undefined) headers.authorization = `${scheme} ${token}`;
    if (proof !== undefined) headers.dpop = await proofFor(face, server, token, proof);
    const response = await fetch(routeOf(servers[face], server).url, { headers });
    const expected = challenge?.replace('ALGS', ALGS) ?? null;
    const got = response.headers.get('www-authenticate');
    expect(response.status).toBe(status);
    // jwtVerifier says why it refuses a forged signature in its own words; the error is the table's.
    if (name === 'forged') expect(got).toMatch(/^DPoP error="invalid_token", error_description="[^"]+", algs="ES256"$/);
    else expect(got).toBe(expected);
    expect(response.headers.get('dpop-nonce')).toBe(nonce ? await TABLE_NONCES.current() : null);
    if (status === 200) {
      const body = (await response.json()) as { token?: string; result?: { data: { token: string } } };
      expect(isRest(face) ? body : body.result!.data).toEqual({ token });
    }
  });

  it.each(FACES)('%s: a proof accepted once is refused the second time', async (face) => {
    const proof = await proofFor(face, 'allowed', tokens.bound!, {});
    const send = () => fetch(routeOf(servers[face], 'allowed').url, { headers: { authorization: `DPoP ${tokens.bound}`, dpop: proof } });
    expect((await send()).status).toBe(200);
    const replayed = await send();
    expect(replayed.status).toBe(401);
    expect(replayed.headers.get('www-authenticate')).toBe(`DPoP error="invalid_dpop_proof", error_description="The DPoP proof was already used", ${ALGS}`);
  });
});
