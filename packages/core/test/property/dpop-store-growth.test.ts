/**
 * docs/contract.md#dpop, replay store: checkers made with one store at any time, in any order, with
 * any windows (`maxAge`, `clockSkew`), between proofs accepted by the ones made before. A proof a
 * checker made later with a longer window is shown was held for the window in force when it was
 * recorded; however the arrangement goes, no proof is accepted twice, and every proof leaves the
 * store once the longest window past its `iat` has ended. Counted in entries, on a clock the test
 * moves.
 */
import { initTRPC } from '@trpc/server';
import { calculateJwkThumbprint } from 'jose';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal } from '../../src/index.js';
import { dpopProofVerifier, memoryReplayStore, type DPoPProofVerifier } from '../../src/dpop/index.js';
import { DEADLINES_HELD } from '../../src/dpop/replay-store.js';
import { invalidTokenError } from '../../src/errors-entry.js';
import { proofKey, signProof, type ProofKey } from '../support/dpop-proofs.js';
import { ADAPTERS, serveRouter } from '../support/serve.js';

const URL_ = 'https://api.example.test/trpc/me';
const TOKEN = 'a-token';
const START = 1_800_000_000;

let key: ProofKey;
beforeAll(async () => {
  key = await proofKey();
});

const step = fc.oneof(
  fc.record({ make: fc.record({ maxAge: fc.integer({ min: 1, max: 120 }), clockSkew: fc.integer({ min: 0, max: 30 }) }) }),
  fc.record({ show: fc.record({ proof: fc.nat(), checker: fc.nat() }) }),
  fc.record({ wait: fc.integer({ min: 0, max: 90 }) }),
);

describe('checkers made with one store over time, over generated arrangements', () => {
  it('never accept a proof twice, and the store holds none past iat plus the longest window', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: -20, max: 200 }), { minLength: 1, maxLength: 3 }),
        fc.record({ maxAge: fc.integer({ min: 1, max: 120 }), clockSkew: fc.integer({ min: 0, max: 30 }) }),
        fc.array(step, { minLength: 1, maxLength: 24 }),
        async (issued, firstWindow, steps) => {
          let time = START;
          const store = memoryReplayStore({ now: () => time }) as ReturnType<typeof memoryReplayStore> & { [DEADLINES_HELD]: () => number };
          const make = (window: { maxAge: number; clockSkew: number }) => dpopProofVerifier({ replay: store, ...window, now: () => time });
          const checkers: DPoPProofVerifier[] = [make(firstWindow)];
          const proofs = await Promise.all(issued.map((after) => signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: START + after })));
          const accepted = new Array<number>(proofs.length).fill(0);
          for (const next of steps) {
            if ('make' in next) checkers.push(make(next.make));
            else if ('wait' in next) time += next.wait;
            else {
              const index = next.show.proof % proofs.length;
              const checker = checkers[next.show.checker % checkers.length]!;
              if ((await checker({ method: 'GET', url: URL_, proof: proofs[index]!, accessToken: TOKEN })).ok) accepted[index]!++;
            }
          }
          expect(accepted.every((count) => count <= 1)).toBe(true);
          // Held at most until the longest window past its iat has ended.
          const longest = Math.max(firstWindow.maxAge, ...steps.flatMap((next) => ('make' in next ? [next.make.maxAge] : [])));
          time = Math.max(time, START + Math.max(...issued) + longest + 1);
          expect(await store.wouldRefuse!('another.jti', 'another')).toBe(false);
          expect(store[DEADLINES_HELD]()).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuse a proof recorded under a shorter window to a longer-window checker made after it', async () => {
    let time = START;
    const store = memoryReplayStore({ now: () => time });
    const short = dpopProofVerifier({ replay: store, maxAge: 30, clockSkew: 0, now: () => time });
    const proof = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: START });
    const show = (checker: DPoPProofVerifier) => checker({ method: 'GET', url: URL_, proof, accessToken: TOKEN });
    expect((await show(short)).ok).toBe(true);
    time = START + 10;
    const long = dpopProofVerifier({ replay: store, maxAge: 300, clockSkew: 0, now: () => time });
    // Past the 30 s its store held it for, within the long checker's 300 s.
    time = START + 60;
    expect(await show(long)).toMatchObject({ ok: false, refusal: { error: 'invalid_dpop_proof', description: 'The DPoP proof is too old' } });
    // A proof issued once the long checker exists is held, and taken, for its 300 s.
    const fresh = await signProof(key, { method: 'GET', url: URL_, accessToken: TOKEN, iat: START + 60 });
    time = START + 300;
    expect((await long({ method: 'GET', url: URL_, proof: fresh, accessToken: TOKEN })).ok).toBe(true);
    expect((await long({ method: 'GET', url: URL_, proof: fresh, accessToken: TOKEN })).ok).toBe(false);
  });
});

// The same through readers over HTTP: a route whose reader has a 30-second window accepts a proof;
// a server started later with a 300-second reader on the same store must not take it once the
// store has let it go.
describe.each(ADAPTERS)('readers over HTTP made one after the other with one store (%s adapter)', (adapter) => {
  const ORIGIN = 'https://api.example.test';
  it('refuse a proof the earlier, shorter reader accepted, at every time after', async () => {
    const jkt = await calculateJwkThumbprint(key.publicJwk, 'sha256');
    const verify = async (token: string): Promise<Principal> => {
      if (token === 'bound') return { scopes: ['me'], cnf: { jkt } };
      throw invalidTokenError('The access token is invalid');
    };
    let time = START;
    const now = () => time;
    const store = memoryReplayStore({ now });
    const t = initTRPC.context<{ req?: unknown }>().create();
    const serve = (maxAge: number) =>
      serveRouter(
        t.router({ me: t.procedure.use(oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, dpop: { mode: 'required', proofs: dpopProofVerifier({ replay: store, maxAge, now }) } })).query(() => 'me') }),
        adapter,
      );
    const proof = await signProof(key, { method: 'GET', url: `${ORIGIN}/trpc/me`, accessToken: 'bound', iat: START });
    const ask = async (url: string) => (await fetch(`${url}/me`, { headers: { authorization: 'DPoP bound', dpop: proof } })).status;
    const short = await serve(30);
    let long: Awaited<ReturnType<typeof serve>> | undefined;
    try {
      expect(await ask(short.url)).toBe(200);
      time = START + 10;
      long = await serve(300);
      for (const after of [20, 31, 32, 60, 299, 300]) {
        time = START + after;
        expect([after, await ask(long.url)]).toEqual([after, 401]);
      }
    } finally {
      await short.close();
      await long?.close();
    }
  });
});
