/**
 * The replay store of docs/contract.md#dpop, over generated histories: `memoryReplayStore` answers
 * every call as the contract's rules say, so that a live identifier is never accepted twice, the
 * store never holds more than `maxEntries`, and no key more than `maxEntriesPerKey`, whatever the
 * order identifiers come and expire in; and `wouldRefuse` foretells `use`'s answer, recording nothing.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryReplayStore } from '../../src/dpop/index.js';

/** One call: after `advance` seconds, `use(key, now + lifetime, holder)`. */
const call = fc.record({
  advance: fc.constantFrom(0, 0, 0, 1, 3, 10),
  key: fc.integer({ min: 0, max: 11 }),
  lifetime: fc.integer({ min: 1, max: 20 }),
  holder: fc.constantFrom(undefined, 'a', 'b', 'c'),
});

interface Live {
  readonly key: string;
  readonly expiresAt: number;
  readonly holder: string | undefined;
}

/** The contract's rules, written out plainly: what `use` must answer, and what is live after. */
function modelUse(live: Live[], time: number, entry: Live, limits: { maxEntries: number; maxEntriesPerKey: number }): { accepted: boolean; live: Live[] } {
  const unexpired = live.filter((held) => held.expiresAt > time);
  const refused =
    unexpired.some((held) => held.key === entry.key) ||
    unexpired.length >= limits.maxEntries ||
    (entry.holder !== undefined && unexpired.filter((held) => held.holder === entry.holder).length >= limits.maxEntriesPerKey);
  return refused ? { accepted: false, live: unexpired } : { accepted: true, live: [...unexpired, entry] };
}

describe('memoryReplayStore over generated histories', () => {
  it('answers every call as the rules say: no live identifier twice, no more than maxEntries, no key past its share', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        fc.array(call, { minLength: 1, maxLength: 120 }),
        (maxEntries, maxEntriesPerKey, calls) => {
          let time = 1_000;
          const store = memoryReplayStore({ now: () => time, maxEntries, ...(maxEntriesPerKey === undefined ? {} : { maxEntriesPerKey }) });
          const limits = { maxEntries, maxEntriesPerKey: maxEntriesPerKey ?? Math.max(1, Math.floor(maxEntries / 10)) };
          let live: Live[] = [];
          for (const { advance, key, lifetime, holder } of calls) {
            time += advance;
            // Keys carry their holder, as the checker's `jkt.jti` do; a key without one is its own.
            const entry: Live = { key: `${holder ?? '-'}.${key}`, expiresAt: time + lifetime, holder };
            const expected = modelUse(live, time, entry, limits);
            // Looking records nothing, and foretells what `use` answers.
            expect(store.wouldRefuse!(entry.key, holder)).toBe(!expected.accepted);
            expect(store.wouldRefuse!(entry.key, holder)).toBe(!expected.accepted);
            expect(store.use(entry.key, entry.expiresAt, holder)).toBe(expected.accepted);
            live = expected.live;
            // Held now, or refused for what was already there.
            if (expected.accepted) expect(store.wouldRefuse!(entry.key, holder)).toBe(true);
            expect(live.length).toBeLessThanOrEqual(maxEntries);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
