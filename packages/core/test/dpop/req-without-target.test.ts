/**
 * docs/contract.md#dpop: "`DPoP <token>` and a proof, no request on ctx (`createCaller`, or a
 * `createContext` that keeps only the headers): 401 `invalid_dpop_proof` (never checked against the
 * URL a verifier sees under `createCaller`)". A ctx whose `req` carries the headers but not the
 * request's method or URL (`{ req: { headers } }`, as server-side callers often build it) has no
 * request to check a proof against either: the verify request would make the method up from the
 * procedure's type and the URL from its path, and a proof made for those must not pass.
 */
import { initTRPC } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal, type TokenVerifier } from '../../src/index.js';
import { dpopProofVerifier } from '../../src/dpop/index.js';
import { invalidTokenError } from '../../src/errors-entry.js';
import { boundAndOtherKey, signProof, type ProofKey } from '../support/dpop-proofs.js';

const ORIGIN = 'https://api.example.test';
const NO_REQUEST = 'The DPoP proof cannot be checked: the request it was made for is not on ctx (ctx.req)';
let key: ProofKey;
let jkt: string;
let verify: TokenVerifier<Principal>;
beforeAll(async () => {
  ({ key, jkt } = await boundAndOtherKey());
  verify = async (token) => {
    if (token !== 'bound') throw invalidTokenError('The access token is invalid');
    return { scopes: ['me'], cnf: { jkt } };
  };
});

describe('a DPoP reader whose ctx.req lacks the method or the URL', () => {
  type Req = { headers: Record<string, string>; method?: string; url?: string };
  const t = initTRPC.context<{ req?: Req }>().create();
  const reader = oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify: (token, options) => verify(token, options), dpop: { mode: 'required', proofs: dpopProofVerifier() } });
  const router = t.router({
    me: t.procedure.use(reader).query(({ ctx }) => ctx.token),
    pay: t.procedure.use(reader).mutation(({ ctx }) => ctx.token),
  });
  const call = t.createCallerFactory(router);
  const refused = { message: expect.stringContaining(NO_REQUEST) as unknown };

  it('refuses a query with a proof for GET <origin>/me, the URL made up from the path', async () => {
    const proof = await signProof(key, { method: 'GET', url: `${ORIGIN}/me`, accessToken: 'bound' });
    await expect(call({ req: { headers: { authorization: 'DPoP bound', dpop: proof } } }).me()).rejects.toMatchObject(refused);
  });

  it('refuses a mutation with a proof for POST <origin>/pay', async () => {
    const proof = await signProof(key, { method: 'POST', url: `${ORIGIN}/pay`, accessToken: 'bound' });
    await expect(call({ req: { headers: { authorization: 'DPoP bound', dpop: proof } } }).pay()).rejects.toMatchObject(refused);
  });

  it('refuses when req has its method but no URL', async () => {
    const proof = await signProof(key, { method: 'GET', url: `${ORIGIN}/me`, accessToken: 'bound' });
    await expect(call({ req: { method: 'GET', headers: { authorization: 'DPoP bound', dpop: proof } } }).me()).rejects.toMatchObject(refused);
  });

  it('still accepts a proof for the request when req has both', async () => {
    const proof = await signProof(key, { method: 'GET', url: `${ORIGIN}/trpc/me`, accessToken: 'bound' });
    expect(await call({ req: { method: 'GET', url: '/trpc/me', headers: { authorization: 'DPoP bound', dpop: proof } } }).me()).toBe('bound');
  });
});
