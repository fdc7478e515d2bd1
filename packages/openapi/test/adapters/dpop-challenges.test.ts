/**
 * docs/contract.md#dpop on every face (trpc-to-openapi's Node and fetch handlers, tRPC's
 * standalone and fetch adapters): each row of the DPoP table answers the same status,
 * `WWW-Authenticate` and `DPoP-Nonce`, and a proof names the URL the client used (the REST
 * handlers route below their base path, and mark the request with the URL it came to).
 */
import { accessTokenHash } from '@trpc-oauth2/core/dpop';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { oauth2PasswordBearer, type Principal } from '@trpc-oauth2/core';
import { DPOP_TABLE, type DPoPServer, type ProofChange } from '@trpc-oauth2/test-kit';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DPOP_ORIGIN, TABLE_NONCES, dpopPublicUrl, dpopTableRouter, tableDPoP } from '../support/dpop-faces.js';
import { FACES, isRest, routeOf, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const ALGORITHMS = ['ES256', 'EdDSA'] as const;

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
}
const newKey = async (): Promise<Key> => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: await exportJWK(publicKey) };
};
let key: Key;
let otherKey: Key;
let jkt: string;

const reader = (mode: 'allowed' | 'required', nonces: boolean) =>
  oauth2PasswordBearer({
    tokenUrl: '/token',
    scopes: { me: 'Read me' },
    origin: DPOP_ORIGIN,
    verify: async (token): Promise<Principal> => {
      if (token === 'bound') return { scopes: ['me'], cnf: { jkt } };
      if (token === 'plain') return { scopes: ['me'] };
      throw invalidTokenError('The access token is invalid');
    },
    dpop: tableDPoP(mode, nonces, ALGORITHMS),
  });
const router = dpopTableRouter((mode, nonces) => reader(mode, nonces).withScopes('me'));

let servers: Record<Face, RunningFace>;
beforeAll(async () => {
  [key, otherKey] = await Promise.all([newKey(), newKey()]);
  jkt = await calculateJwkThumbprint(key.jwk, 'sha256');
  servers = await serveFaces(router, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(servers ?? {}).map((server) => server.close()));
});

async function proofFor(face: Face, server: DPoPServer, token: string, change: ProofChange): Promise<string> {
  const by = change.otherKey ? otherKey : key;
  const nonce = server === 'nonces' && !change.noNonce ? await TABLE_NONCES.current() : undefined;
  return new SignJWT({
    htm: change.method ?? 'GET',
    htu: dpopPublicUrl(servers, face, server, change.below).href,
    iat: Math.floor(Date.now() / 1000) + (change.iatOffset ?? 0),
    jti: crypto.randomUUID(),
    ath: await accessTokenHash(change.ath ?? token),
    ...(nonce === undefined ? {} : { nonce }),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: by.jwk })
    .sign(by.privateKey);
}

const rows = FACES.flatMap((face) => DPOP_TABLE.map((row) => ({ face, ...row })));

describe('the DPoP table of docs/contract.md#dpop on every face', () => {
  it.each(rows)('$face $server: $name → $status', async ({ face, server, authorization, proof, status, challenge, nonce }) => {
    const token = authorization?.split(' ')[1] ?? '';
    const headers: Record<string, string> = {};
    if (authorization !== undefined) headers.authorization = authorization;
    if (proof !== undefined) headers.dpop = await proofFor(face, server, token, proof);
    const response = await fetch(routeOf(servers[face], server).url, { headers });
    expect({ status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual({
      status,
      challenge: challenge?.replace('ALGS', `algs="${ALGORITHMS.join(' ')}"`) ?? null,
    });
    expect(response.headers.get('dpop-nonce')).toBe(nonce ? await TABLE_NONCES.current() : null);
    if (status === 200) {
      const body = (await response.json()) as any;
      expect(isRest(face) ? body : body.result.data).toEqual({ token });
    }
  });

  it.each(FACES)('%s: a proof accepted once is refused the second time', async (face) => {
    const proof = await proofFor(face, 'allowed', 'bound', {});
    const send = () => fetch(routeOf(servers[face], 'allowed').url, { headers: { authorization: 'DPoP bound', dpop: proof } });
    expect((await send()).status).toBe(200);
    const replayed = await send();
    expect(replayed.status).toBe(401);
    expect(replayed.headers.get('www-authenticate')).toBe(
      `DPoP error="invalid_dpop_proof", error_description="The DPoP proof was already used", algs="${ALGORITHMS.join(' ')}"`,
    );
  });
});
