/**
 * docs/contract.md#dpop, replay store: a proof is held until the end of the longest window of the
 * checkers that record in its store, `iat + maxAge`, and the checkers made without a store share
 * one for the process. A window that never ends (`maxAge` or `clockSkew` not finite) would hold
 * proofs that never expire, in a store other checkers share: it is refused where the checker is
 * made, and never reaches the readers of other checkers. In its own file: the process's shared
 * store is the one under test.
 */
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal } from '../../src/index.js';
import { dpopProofVerifier } from '../../src/dpop/index.js';
import { invalidTokenError } from '../../src/errors-entry.js';
import { boundAndOtherKey, signProof, type ProofKey } from '../support/dpop-proofs.js';
import { ADAPTERS, serveRouter, type RunningServer } from '../support/serve.js';

const ORIGIN = 'https://api.example.test';

let key: ProofKey;
let jkt: string;
beforeAll(async () => {
  ({ key, jkt } = await boundAndOtherKey());
});

const verify = async (token: string): Promise<Principal> => {
  if (token === 'bound') return { scopes: ['me'], cnf: { jkt } };
  throw invalidTokenError('The access token is invalid');
};

const WINDOWS_WITHOUT_END = [
  ['maxAge', { maxAge: Number.POSITIVE_INFINITY }],
  ['clockSkew', { clockSkew: Number.POSITIVE_INFINITY }],
  ['maxAge', { maxAge: Number.MAX_VALUE }],
] as const;

describe.each(ADAPTERS)('a reader whose checker records in the process store (%s adapter)', (adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    const t = initTRPC.context<{ req?: unknown }>().create();
    // No `proofs`: the reader's checker records in the process's shared store.
    const reader = oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, dpop: { mode: 'required' } });
    server = await serveRouter(t.router({ me: t.procedure.use(reader).query(() => 'me') }), adapter);
  });
  afterAll(() => server.close());

  const ask = async () => {
    const proof = await signProof(key, { method: 'GET', url: `${ORIGIN}/trpc/me`, accessToken: 'bound' });
    return (await fetch(`${server.url}/me`, { headers: { authorization: 'DPoP bound', dpop: proof } })).status;
  };

  it.each(WINDOWS_WITHOUT_END)('keeps answering once another checker of the process is asked for a %s without end (%o)', async (_name, window) => {
    expect(await ask()).toBe(200);
    expect(() => dpopProofVerifier(window)).toThrow(TypeError);
    expect(await ask()).toBe(200);
    expect(await ask()).toBe(200);
  });
});

describe('dpopProofVerifier', () => {
  it.each([
    ...WINDOWS_WITHOUT_END,
    ['maxAge', { maxAge: 0 }],
    ['maxAge', { maxAge: Number.NaN }],
    ['clockSkew', { clockSkew: -1 }],
    ['clockSkew', { clockSkew: Number.NaN }],
  ] as const)('refuses a %s that makes no window (%o)', (_name, window) => {
    expect(() => dpopProofVerifier(window)).toThrow(TypeError);
  });

  it('accepts windows a proof can end within', () => {
    expect(() => dpopProofVerifier({ maxAge: 0.5, clockSkew: 0 })).not.toThrow();
    expect(() => dpopProofVerifier({ maxAge: 86_400, clockSkew: 300 })).not.toThrow();
  });
});
