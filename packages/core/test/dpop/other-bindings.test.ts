/**
 * docs/contract.md#dpop: a token bound by a confirmation method no reader here checks (RFC 8705's
 * mTLS `cnf["x5t#S256"]`, RFC 7800's `cnf.jwk`) is refused (401 `invalid_token`) by every reader,
 * with DPoP or without: taken as a bearer token, a stolen bound token would work here. Over
 * tRPC's fetch and standalone adapters on loopback.
 */
import { initTRPC } from '@trpc/server';
import { calculateJwkThumbprint } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal } from '../../src/index.js';
import { dpopProofVerifier } from '../../src/dpop/index.js';
import { invalidTokenError } from '../../src/errors-entry.js';
import { proofKey, signProof, type ProofKey } from '../support/dpop-proofs.js';
import { ADAPTERS, serveRouter, type RunningServer } from '../support/serve.js';

const ORIGIN = 'https://api.example.test';
const REFUSED = 'The access token is bound to a key or certificate this resource cannot check';

let key: ProofKey;
let jkt: string;
/** Principals by token. */
let principals: Map<string, Principal>;
beforeAll(async () => {
  key = await proofKey();
  jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
  principals = new Map<string, Principal>([
    ['mtls', { scopes: ['me'], cnf: { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' } }],
    ['jwk', { scopes: ['me'], cnf: { jwk: { kty: 'EC' } } }],
    ['empty', { scopes: ['me'], cnf: {} }],
    ['dpop-and-mtls', { scopes: ['me'], cnf: { jkt: 'set below', 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' } }],
    ['dpop', { scopes: ['me'], cnf: { jkt: 'set below' } }],
  ]);
  for (const name of ['dpop-and-mtls', 'dpop']) principals.set(name, { ...principals.get(name)!, cnf: { ...principals.get(name)!.cnf, jkt } });
});

const verify = async (token: string) => {
  const principal = principals.get(token);
  if (principal === undefined) throw invalidTokenError('The access token is invalid');
  return principal;
};

describe.each(ADAPTERS)('a token bound by another method, over the %s adapter', (adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    const t = initTRPC.context<{ req?: unknown }>().create();
    const plain = oauth2PasswordBearer({ tokenUrl: '/token', verify });
    const dpop = oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, dpop: { mode: 'allowed', proofs: dpopProofVerifier({ algorithms: ['ES256'] }) } });
    server = await serveRouter(t.router({ plain: t.procedure.use(plain).query(() => 'ok'), dpop: t.procedure.use(dpop).query(() => 'ok') }), adapter);
  });
  afterAll(() => server.close());

  const call = async (procedure: string, authorization: string, proof?: string) => {
    const response = await fetch(`${server.url}/${procedure}`, { headers: { authorization, ...(proof === undefined ? {} : { dpop: proof }) } });
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  };
  const proofFor = (procedure: string, token: string) => signProof(key, { method: 'GET', url: `${ORIGIN}/trpc/${procedure}`, accessToken: token });

  it.each(['mtls', 'jwk'])('a reader without DPoP refuses a token bound by cnf (%s)', async (token) => {
    expect(await call('plain', `Bearer ${token}`)).toEqual({ status: 401, challenge: `Bearer error="invalid_token", error_description="${REFUSED}"` });
  });

  it('a reader without DPoP takes a token whose cnf names no method as unbound', async () => {
    expect((await call('plain', 'Bearer empty')).status).toBe(200);
  });

  it('a DPoP reader refuses an mTLS-bound token, sent as Bearer or with a proof', async () => {
    expect(await call('dpop', 'Bearer mtls')).toMatchObject({ status: 401, challenge: expect.stringContaining(REFUSED) });
    expect(await call('dpop', 'DPoP mtls', await proofFor('dpop', 'mtls'))).toMatchObject({ status: 401, challenge: expect.stringContaining(REFUSED) });
  });

  it('a DPoP reader refuses a token bound to its proof key and to a certificate, and accepts one bound to the key alone', async () => {
    expect(await call('dpop', 'DPoP dpop-and-mtls', await proofFor('dpop', 'dpop-and-mtls'))).toMatchObject({ status: 401, challenge: expect.stringContaining(REFUSED) });
    expect((await call('dpop', 'DPoP dpop', await proofFor('dpop', 'dpop'))).status).toBe(200);
  });
});
