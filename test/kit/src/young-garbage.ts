import v8 from 'node:v8';
import vm from 'node:vm';
import { expect } from 'vitest';

// What a handler makes per request must die in the young generation: what survives two
// scavenges is garbage only a full collection frees (BENCHMARKS.md#what-promotes-a-request).

type Collect = (options?: { type: 'major' | 'minor' }) => void;
let exposed: Collect | undefined;
/** V8's `gc`, exposed on first use only, so that a test importing the kit for anything else runs with the flags it was given. */
const gc: Collect = (options) => {
  exposed ??= (v8.setFlagsFromString('--expose-gc'), vm.runInNewContext('gc') as Collect);
  exposed(options);
};

/** A mebibyte, the unit the young-generation checks compare in. */
export const MB = 1024 * 1024;

/** Bytes in use outside the young generation. */
const outsideYoung = () =>
  v8
    .getHeapSpaceStatistics()
    .filter((space) => !space.space_name.startsWith('new'))
    .reduce((sum, space) => sum + space.space_used_size, 0);

/** How much `make`, called `n` times with nothing kept, leaves outside the young generation once two scavenges ran. */
async function leftOnce(make: (i: number) => unknown, n: number): Promise<number> {
  gc();
  const before = outsideYoung();
  for (let i = 0; i < n; i++) {
    const made = make(i);
    if (!(made instanceof Promise)) continue;
    await made;
    // Awaited calls that never give the event loop a turn keep what each left behind.
    if (i % 500 === 499) await new Promise((resolve) => setImmediate(resolve));
  }
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  return outsideYoung() - before;
}

/**
 * What `make`, called `n` times (50,000 unless told; each call awaited when it returns a
 * promise), leaves outside the young generation, once warmed up: the median of three runs, since a collection V8
 * starts by itself in the middle of one run (the other test files' workers share the machine)
 * moves that run only.
 */
export async function leftOutsideYoung(make: (i: number) => unknown, n = 50_000): Promise<number> {
  // Warmed up first: the code V8 compiles for a path while it is new lands outside the young
  // generation too, and is not what is measured.
  await leftOnce(make, Math.min(n, 5_000));
  const runs = [await leftOnce(make, n), await leftOnce(make, n), await leftOnce(make, n)].sort((a, b) => a - b);
  return runs[1]!;
}

/**
 * Node 20 gives each object made by a spread followed by keys it lacks a hidden class of its
 * own, made outside the young generation; Node 24 shares one, and there neither form leaves
 * anything. On Node 20 the control (the spread) must show the garbage and ours leave a fifth of
 * it at most; elsewhere ours must leave nothing either.
 */
export function expectSharedClass(control: number, ours: number): void {
  if (SPREAD_GETS_OWN_CLASS) expect(control).toBeGreaterThan(MB);
  expect(ours).toBeLessThan(SPREAD_GETS_OWN_CLASS ? control / 5 : MB / 4);
}

/** The bytes of V8's heap in use once a full collection ran: what something keeps alive, compared before and after. */
export function heapInUse(): number {
  gc({ type: 'major' });
  gc({ type: 'major' });
  return v8.getHeapStatistics().used_heap_size;
}

/** Whether this runtime gives an object made by a spread followed by keys it lacks a hidden class of its own (Node 20). */
export const SPREAD_GETS_OWN_CLASS = process.versions.node.startsWith('20.');
