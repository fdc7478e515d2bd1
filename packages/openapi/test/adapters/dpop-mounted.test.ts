/**
 * docs/contract.md#dpop: a proof's `htu` names the URL the client used (RFC 9449 §4.3). The Node
 * faces' handlers take Connect's `(req, res, next)`, and Express and Connect mount a handler below
 * a path (`app.use('/api', rest)`) by cutting the mount path off `req.url` and keeping the target
 * the client sent as `req.originalUrl`: the REST and tRPC handlers route on the former, and the
 * readers check a proof against the latter, as they do on a server of their own.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { accessTokenHash, dpopProofVerifier } from '@trpc-oauth2/core/dpop';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { oauth2PasswordBearer, type Principal } from '@trpc-oauth2/core';
import { closing, servingOnLoopback } from '@trpc-oauth2/test-kit';
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuth2HTTPHandler, createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';
import { DPOP_ORIGIN, dpopTableRouter } from '../support/dpop-faces.js';

let key: { privateKey: CryptoKey; jwk: JWK };
let jkt: string;
/** The URL each verification saw. */
const seenUrls: string[] = [];
const reader = oauth2PasswordBearer({
  tokenUrl: '/token',
  scopes: { me: 'Read me' },
  origin: DPOP_ORIGIN,
  verify: async (token, options): Promise<Principal> => {
    seenUrls.push(options?.request.url ?? '');
    if (token === 'bound') return { scopes: ['me'], cnf: { jkt } };
    throw invalidTokenError('The access token is invalid');
  },
  dpop: { mode: 'required', proofs: dpopProofVerifier({ algorithms: ['ES256'] }) },
});
const router = dpopTableRouter(() => reader.withScopes('me'));

type Handler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
/** What Express and Connect do for `app.use(mount, handler)`: `req.url` below the mount path, the target kept as `originalUrl`. */
const mountedAt = (mounts: Record<string, Handler>) => (req: IncomingMessage, res: ServerResponse) => {
  const target = req.url ?? '/';
  const notFound = () => void res.writeHead(404).end();
  const mount = Object.keys(mounts).find((path) => target.startsWith(`${path}/`));
  if (mount === undefined) return notFound();
  Object.assign(req, { originalUrl: target, url: target.slice(mount.length) });
  mounts[mount]!(req, res, notFound);
};

const server = createServer();
let origin: string;
beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  key = { privateKey, jwk: await exportJWK(publicKey) };
  jkt = await calculateJwkThumbprint(key.jwk, 'sha256');
  const rest = createOAuth2OpenApiHttpHandler({ router, createContext: ({ req }) => ({ req }) });
  const trpc = createOAuth2HTTPHandler({ router, createContext: ({ req }) => ({ req }) });
  server.on('request', mountedAt({ '/api': (req, res, next) => void rest(req, res, next), '/trpc': (req, res) => trpc(req, res) }));
  origin = await servingOnLoopback(server);
});
afterAll(() => closing(server));

const proofFor = async (htu: string) =>
  new SignJWT({ htm: 'GET', htu, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID(), ath: await accessTokenHash('bound') })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey);

describe.each([
  ['REST Node handler', '/api/dpop/required', '/dpop/required'],
  ['tRPC standalone handler', '/trpc/required', '/required'],
])('the %s mounted below a path, as Express and Connect mount it', (_face, path, below) => {
  const call = async (htu: string) => {
    const response = await fetch(`${origin}${path}`, { headers: { authorization: 'DPoP bound', dpop: await proofFor(htu) } });
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  };

  it('accepts a proof of the URL the client used, and the verifier sees that URL', async () => {
    seenUrls.length = 0;
    expect(await call(`${DPOP_ORIGIN}${path}`)).toEqual({ status: 200, challenge: null });
    expect(seenUrls).toEqual([`${DPOP_ORIGIN}${path}`]);
  });

  it('refuses a proof of the path below the mount, which the client did not call', async () => {
    expect(await call(`${DPOP_ORIGIN}${below}`)).toEqual({
      status: 401,
      challenge: 'DPoP error="invalid_dpop_proof", error_description="The DPoP proof htu does not match the request URL", algs="ES256"',
    });
  });
});
