/**
 * The replay store of docs/contract.md#dpop, over generated histories: `memoryReplayStore` answers
 * every call as the contract's rules say, so that a live identifier is never accepted twice, the
 * store never holds more than `maxEntries`, and no key more than `maxEntriesPerKey`, whatever the
 * order identifiers come and expire in; `wouldRefuse` foretells `use`'s answer, recording nothing;
 * and `release` forgets an identifier as it was recorded (giving its holder its room back), and
 * nothing else: not one recorded again since with another deadline, not one never recorded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryReplayStore } from '../../src/dpop/index.js';

/**
 * One call: after `advance` seconds, `use(key, now + lifetime, holder)`; or, with `release`,
 * `release(key, deadline, holder)` of the deadline the key was last recorded with (`stale`: one
 * second off it, which must forget nothing).
 */
const call = fc.record({
  advance: fc.constantFrom(0, 0, 0, 1, 3, 10),
  key: fc.integer({ min: 0, max: 11 }),
  lifetime: fc.integer({ min: 1, max: 20 }),
  holder: fc.constantFrom(undefined, 'a', 'b', 'c'),
  release: fc.constantFrom(undefined, undefined, undefined, 'recorded', 'stale'),
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

/** What is live after `release(key, expiresAt)`: the same, without that key held with that deadline. */
function modelRelease(live: Live[], time: number, key: string, expiresAt: number): Live[] {
  return live.filter((held) => held.expiresAt > time && !(held.key === key && held.expiresAt === expiresAt));
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
          // The deadline each key was last recorded with, live or not.
          const recorded = new Map<string, number>();
          for (const { advance, key, lifetime, holder, release } of calls) {
            time += advance;
            // Keys carry their holder, as the checker's `jkt.jti` do; a key without one is its own.
            const entry: Live = { key: `${holder ?? '-'}.${key}`, expiresAt: time + lifetime, holder };
            if (release !== undefined) {
              const deadline = (recorded.get(entry.key) ?? time + lifetime) + (release === 'stale' ? 1 : 0);
              store.release!(entry.key, deadline, holder);
              live = modelRelease(live, time, entry.key, deadline);
              expect(store.wouldRefuse!(entry.key, holder)).toBe(modelUse(live, time, entry, limits).accepted === false);
              continue;
            }
            const expected = modelUse(live, time, entry, limits);
            // Looking records nothing, and foretells what `use` answers.
            expect(store.wouldRefuse!(entry.key, holder)).toBe(!expected.accepted);
            expect(store.wouldRefuse!(entry.key, holder)).toBe(!expected.accepted);
            expect(store.use(entry.key, entry.expiresAt, holder)).toBe(expected.accepted);
            if (expected.accepted) recorded.set(entry.key, entry.expiresAt);
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
