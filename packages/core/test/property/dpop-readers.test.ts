/**
 * The invariant of docs/contract.md#dpop over the arrangements a user can write: one DPoP reader,
 * or `anyOf` of two or three that agree, in either mode, with tokens any of the verifiers knows,
 * bound or not, sent as Bearer or DPoP, with a proof that is good or has one fault. A request
 * runs exactly when the contract's reader table says it does; nothing else gets through.
 */
import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyOf, type Principal } from '../../src/index.js';
import { dpopProofVerifier, type DPoPProofVerifier } from '../../src/dpop/index.js';
import { boundAndOtherKeyBeforeAll, proofWithFault, readerKnowing, type ProofFault } from '../support/dpop-arrangements.js';

const ORIGIN = 'https://api.example.test';
const URL_OF_CALL = `${ORIGIN}/me`;
const PROOF_FAULTS = ['none', 'other-key', 'htm', 'htu', 'ath', 'stale', 'missing'] as const satisfies readonly ProofFault[];

const keys = boundAndOtherKeyBeforeAll();

const arrangement = fc.record({
  mode: fc.constantFrom('allowed' as const, 'required' as const),
  readers: fc.integer({ min: 1, max: 3 }),
  /** Which reader's verifier knows the token; past the last: none does. */
  knownBy: fc.integer({ min: 0, max: 3 }),
  bound: fc.boolean(),
  scheme: fc.constantFrom('Bearer', 'DPoP', 'dpop', 'none'),
  proof: fc.constantFrom(...PROOF_FAULTS),
});

let sequence = 0;
describe('DPoP readers, alone and combined by anyOf', () => {
  it('run a request exactly when its token, its scheme and its proof are what the mode accepts', async () => {
    await fc.assert(
      fc.asyncProperty(arrangement, async (a) => {
        const token = `token-${++sequence}`;
        const principal: Principal = a.bound ? { scopes: ['me'], cnf: { jkt: keys.jkt } } : { scopes: ['me'] };
        const proofs: DPoPProofVerifier = dpopProofVerifier({ algorithms: ['ES256'] });
        const readers = Array.from({ length: a.readers }, (_, index) =>
          readerKnowing({ index, origin: ORIGIN, token, knows: index === a.knownBy, principal, mode: a.mode, proofs }),
        );
        const reader = readers.length === 1 ? readers[0]! : anyOf(readers[0]!, readers[1]!, ...readers.slice(2));
        const t = initTRPC.context<{ req: Request }>().create();
        const caller = t.router({ me: t.procedure.use(reader).query(() => 'ran') }).createCaller;

        const headers: Record<string, string> = {};
        if (a.scheme !== 'none') headers.authorization = `${a.scheme} ${token}`;
        const proof = await proofWithFault(a.proof, keys, { method: 'GET', url: URL_OF_CALL, token });
        if (proof !== undefined) headers.dpop = proof;
        const ran = await caller({ req: new Request(URL_OF_CALL, { headers }) })
          .me()
          .then(
            () => true,
            () => false,
          );

        const known = a.knownBy < a.readers;
        const asDPoP = a.scheme === 'DPoP' || a.scheme === 'dpop';
        const expected =
          known &&
          (asDPoP ? a.bound && a.proof === 'none' : a.scheme === 'Bearer' && a.mode === 'allowed' && !a.bound);
        expect(ran).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
