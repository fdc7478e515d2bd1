import { setImmediate as nextTurn } from 'node:timers/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PasswordQueue, type PasswordQueueEvent } from '../../src/store/password-queue.js';

// The queue every password hash of the demo takes its turn in (docs/contract.md#token-responses):
// bounded at `concurrency`, one hash per requester at a time, requesters taking turns.

/** Jobs: which requester sends them, how many turns each takes, and when each arrives. */
const jobsArbitrary = fc.array(fc.record({ requester: fc.integer({ min: 0, max: 4 }), turns: fc.integer({ min: 0, max: 3 }), arrival: fc.integer({ min: 0, max: 6 }) }), {
  minLength: 1,
  maxLength: 25,
});

describe('PasswordQueue', () => {
  it('never runs more than `concurrency` hashes, nor two of one requester, runs each requester’s in order, and lets a waiting hash wait for at most one hash of each other requester once its requester is free', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), jobsArbitrary, async (concurrency, jobs) => {
        const events: PasswordQueueEvent[] = [];
        const requesters = [0, 1, 2, 3, 4].map((n) => ({ n }));
        const started: { job: number; requester: number }[] = [];
        /** Per requester: how many hashes had started when each of its hashes ended. */
        const endedAt = new Map<object, number[]>(requesters.map((r) => [r, []]));
        const queue = new PasswordQueue({
          concurrency,
          onEvent: (event) => {
            events.push(event);
            if (event.type === 'end') endedAt.get(event.key)!.push(started.length);
          },
        });
        const enqueuedAt = new Map<number, number>();
        const done: Promise<number>[] = [];
        const byArrival = jobs.map((job, index) => ({ ...job, index })).sort((a, b) => a.arrival - b.arrival);
        let clock = 0;
        for (const job of byArrival) {
          while (clock < job.arrival) {
            await nextTurn();
            clock += 1;
          }
          enqueuedAt.set(job.index, started.length);
          done.push(
            queue.run(requesters[job.requester]!, async () => {
              started.push({ job: job.index, requester: job.requester });
              for (let i = 0; i < job.turns; i += 1) await nextTurn();
              return job.index;
            }),
          );
        }
        expect((await Promise.all(done)).sort((a, b) => a - b)).toEqual(byArrival.map((job) => job.index).sort((a, b) => a - b));

        // Bounded, and one per requester at a time.
        const running = new Map<object, number>();
        let total = 0;
        for (const event of events) {
          const delta = event.type === 'start' ? 1 : -1;
          total += delta;
          running.set(event.key, (running.get(event.key) ?? 0) + delta);
          expect(total).toBeLessThanOrEqual(concurrency);
          expect(running.get(event.key)).toBeLessThanOrEqual(1);
        }
        // In order within a requester.
        for (let r = 0; r < 5; r += 1) {
          const own = started.filter((s) => s.requester === r).map((s) => s.job);
          const sent = byArrival.filter((job) => job.requester === r).map((job) => job.index);
          expect(own).toEqual(sent);
        }
        // Fair turns: once a waiting hash's requester is free (its previous hash ended, or it has
        // none), every other requester starts at most one hash before it. While its own requester is
        // busy, others may use the free places: the queue never idles a place that work could use.
        for (const job of byArrival) {
          const own = byArrival.filter((other) => other.requester === job.requester);
          const position = own.indexOf(job);
          const previousEnd = position === 0 ? 0 : endedAt.get(requesters[job.requester]!)![position - 1]!;
          const eligibleAt = Math.max(enqueuedAt.get(job.index)!, previousEnd);
          const at = started.findIndex((s) => s.job === job.index);
          const others = new Map<number, number>();
          for (const s of started.slice(eligibleAt, at)) if (s.requester !== job.requester) others.set(s.requester, (others.get(s.requester) ?? 0) + 1);
          for (const count of others.values()) expect(count).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a concurrency that is not a positive integer', () => {
    for (const concurrency of [0, -1, 1.5, Number.NaN]) expect(() => new PasswordQueue({ concurrency })).toThrow(RangeError);
  });
});
