/**
 * docs/contract.md#dpop, replay store: checkers made with one store, whatever their windows, over
 * generated arrangements. A proof any of them accepted is refused by every one of them from then
 * on (as a replay while some window still takes it, as too old after), and the store holds it
 * until the end of the longest window counted from the proof's `iat`, never from when it was
 * accepted: a proof accepted late in its window takes no longer a place than one accepted early.
 * Counted in entries, on a clock the test moves.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { dpopProofVerifier, memoryReplayStore } from '../../src/dpop/index.js';
import { DEADLINES_HELD } from '../../src/dpop/replay-store.js';
import { proofKey, signProof, type ProofKey } from '../support/dpop-proofs.js';

const URL_ = 'https://api.example.test/trpc/me';
const TOKEN = 'a-token';
const IAT = 1_800_000_000;

let key: ProofKey;
beforeAll(async () => {
  key = await proofKey();
});

describe('checkers sharing a replay store, over generated windows', () => {
  it('refuse a proof once any of them accepted it, and hold it until iat plus the longest window', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 600 }), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.record({ checker: fc.nat(), after: fc.integer({ min: 0, max: 700 }) }), { maxLength: 6 }),
        async (windows, first, lateness, replays) => {
          // The checkers exist before the proof is issued: one made later takes only proofs its
          // store held for its window (docs/contract.md#dpop).
          let time = IAT - 1;
          const store = memoryReplayStore({ now: () => time }) as ReturnType<typeof memoryReplayStore> & { [DEADLINES_HELD]: () => number };
          const checkers = windows.map((maxAge) => dpopProofVerifier({ replay: store, maxAge, clockSkew: 0, now: () => time }));
          const longest = Math.max(...windows);
          const proof = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: IAT });
          const ask = (index: number) => checkers[index % checkers.length]!({ method: 'GET', url: URL_, proof, accessToken: TOKEN });
          // Accepted by one of them, anywhere in its own window.
          const acceptor = first % checkers.length;
          time = IAT + Math.floor(lateness * windows[acceptor]!);
          expect((await ask(acceptor)).ok).toBe(true);
          expect(store[DEADLINES_HELD]()).toBe(1);
          // Never again, by any of them, at any later time.
          for (const { checker, after } of replays) {
            time += after;
            expect((await ask(checker)).ok).toBe(false);
          }
          // Held through the end of the longest window from iat, and gone right after it.
          time = IAT + longest;
          expect(await store.wouldRefuse!('another.jti', 'another')).toBe(false);
          expect(store[DEADLINES_HELD]()).toBe(1);
          time = IAT + longest + 1;
          expect(await store.wouldRefuse!('another.jti', 'another')).toBe(false);
          expect(store[DEADLINES_HELD]()).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });
});
