/**
 * docs/contract.md#dpop, **OpenAPI**: a chain of two verified readers, one accepting DPoP (`mode: 'allowed'`) and one without
 * DPoP. One credential is consulted by both (docs/contract.md#verified-readers), sent in one
 * scheme: a requirement that pairs the DPoP scheme of one with the Bearer scheme of the other
 * can never be met.
 */
import { oauth2AuthorizationCodeBearer, oauth2PasswordBearer, type Principal } from '@trpc-oauth2/core';
import { accessTokenHash, dpopProofVerifier } from '@trpc-oauth2/core/dpop';
import { initTRPC } from '@trpc/server';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { serveFace, type RunningFace } from '../support/faces.js';

const ORIGIN = 'https://api.example.test';
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwk = await exportJWK(publicKey);
const jkt = await calculateJwkThumbprint(jwk, 'sha256');
const verify = async (token: string): Promise<Principal> => (token === 'bound' ? { scopes: ['me'], cnf: { jkt } } : { scopes: ['me'] });
const proofs = dpopProofVerifier({ algorithms: ['ES256'] });
const dpopReader = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read me' }, schemeName: 'Own', origin: ORIGIN, verify, dpop: { mode: 'allowed', proofs } });
const plainReader = oauth2AuthorizationCodeBearer({ authorizationUrl: '/authorize', tokenUrl: '/token', scopes: { me: 'Read me' }, schemeName: 'Partner', verify });
const otherDPoPReader = oauth2AuthorizationCodeBearer({
  authorizationUrl: '/authorize',
  tokenUrl: '/token',
  scopes: { me: 'Read me' },
  schemeName: 'Other',
  origin: ORIGIN,
  verify,
  dpop: { mode: 'allowed', proofs },
});

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
const router = t.router({
  mixed: t.procedure.use(dpopReader).use(plainReader.requireScopes('me')).meta({ openapi: { method: 'GET', path: '/mixed' } }).input(z.void()).output(z.string()).query(() => 'ok'),
  both: t.procedure.use(dpopReader).use(otherDPoPReader.requireScopes('me')).meta({ openapi: { method: 'GET', path: '/both' } }).input(z.void()).output(z.string()).query(() => 'ok'),
});

let server: RunningFace;
beforeAll(async () => {
  server = await serveFace(router, 'rest-standalone');
});
afterAll(async () => {
  await server.close();
});

const proof = async (token: string, path: string) =>
  new SignJWT({ htm: 'GET', htu: `${ORIGIN}/api${path}`, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID(), ath: await accessTokenHash(token) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
    .sign(privateKey);

it('lists no requirement that mixes a DPoP scheme with a Bearer one (one credential, one scheme)', async () => {
  const document = generateOAuth2OpenApiDocument(router, { title: 'dpop', version: '1', baseUrl: `${ORIGIN}/api` }) as any;
  const mixed = document.paths['/mixed'].get.security;
  const both = document.paths['/both'].get.security;

  // What /mixed answers: a Bearer token passes both readers; a DPoP-bound token with its proof, which
  // the document allows through { OwnDPoP, Partner }, is refused by the reader without DPoP.
  const bearer = await fetch(`${server.origin}/api/mixed`, { headers: { authorization: 'Bearer plain' } });
  const dpop = await fetch(`${server.origin}/api/mixed`, { headers: { authorization: 'DPoP bound', dpop: await proof('bound', '/mixed') } });
  const bothDPoP = await fetch(`${server.origin}/api/both`, { headers: { authorization: 'DPoP bound', dpop: await proof('bound', '/both') } });
  expect(bearer.status).toBe(200);
  expect(dpop.status).toBe(401);
  expect(bothDPoP.status).toBe(200);

  const schemeOf = (name: string) => (name.endsWith('DPoP') ? 'DPoP' : 'Bearer');
  for (const requirement of [...mixed, ...both]) expect(new Set(Object.keys(requirement).map(schemeOf)).size, JSON.stringify(requirement)).toBe(1);
  expect(mixed).toEqual([{ Own: ['me'], Partner: ['me'] }]);
  expect(both).toEqual([{ Own: ['me'], Other: ['me'] }, { OwnDPoP: ['me'], OtherDPoP: ['me'] }]);
});
