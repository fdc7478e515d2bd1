/**
 * What the DPoP property suites arrange over and over: the two proof keys, a reader whose verifier
 * knows one token, and a proof with one fault of those a client can make.
 */
import { beforeAll } from 'vitest';
import { oauth2PasswordBearer, type Principal } from '../../src/index.js';
import type { DPoPProofVerifier } from '../../src/dpop/index.js';
import { invalidTokenError } from '../../src/errors-entry.js';
import { boundAndOtherKey, signProof, type ProofKey, type ProofParts } from './dpop-proofs.js';

export type BoundAndOtherKey = Awaited<ReturnType<typeof boundAndOtherKey>>;

/**
 * The keys of {@link boundAndOtherKey}, made once before the suite's tests (this registers a
 * `beforeAll`): the object is filled in then, so read its members inside a test.
 */
export function boundAndOtherKeyBeforeAll(): BoundAndOtherKey {
  const keys = {} as BoundAndOtherKey;
  beforeAll(async () => {
    Object.assign(keys, await boundAndOtherKey());
  });
  return keys;
}

/**
 * One fault of a proof: `none` (a good proof), signed by the `other-key`, for another method
 * (`htm`) or URL (`htu`), for another token (`ath`), ten minutes old (`stale`), `missing`
 * altogether, or without the nonce it was asked for (`no-nonce`).
 */
export type ProofFault = 'none' | 'other-key' | 'htm' | 'htu' | 'ath' | 'stale' | 'missing' | 'no-nonce';

/** The `DPoP` header for a request carrying `token`, with `fault`; `undefined` when it is `missing`. */
export async function proofWithFault(
  fault: ProofFault,
  keys: Pick<BoundAndOtherKey, 'key' | 'other'>,
  request: { method: string; url: string; token: string; nonce?: string },
): Promise<string | undefined> {
  if (fault === 'missing') return undefined;
  const faults: Record<Exclude<ProofFault, 'missing'>, Partial<ProofParts>> = {
    none: {},
    'other-key': {},
    htm: { method: request.method === 'POST' ? 'GET' : 'POST' },
    htu: { url: new URL('/other', request.url).href },
    ath: { accessToken: `${request.token}x` },
    stale: { iat: Math.floor(Date.now() / 1000) - 600 },
    'no-nonce': { nonce: undefined },
  };
  const parts: ProofParts = { method: request.method, url: request.url, accessToken: request.token, ...(request.nonce === undefined ? {} : { nonce: request.nonce }) };
  return signProof(fault === 'other-key' ? keys.other : keys.key, { ...parts, ...faults[fault] });
}

/**
 * A DPoP reader (`Reader<index>`, scope `me`) whose verifier gives `principal` for `token` when
 * `knows` and refuses every other token as invalid.
 */
export function readerKnowing(options: {
  index: number;
  origin: string;
  token: string;
  knows: boolean;
  principal: Principal;
  mode: 'allowed' | 'required';
  proofs: DPoPProofVerifier;
  resourceMetadata?: string;
}) {
  const { index, origin, token, knows, principal, mode, proofs, resourceMetadata } = options;
  return oauth2PasswordBearer({
    tokenUrl: '/token',
    scopes: { me: 'Read me' },
    schemeName: `Reader${index}`,
    origin,
    ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
    verify: async (presented) => {
      if (presented === token && knows) return principal;
      throw invalidTokenError('Not a token of this reader');
    },
    dpop: { mode, proofs },
  });
}
