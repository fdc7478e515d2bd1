import v8 from 'node:v8';
import vm from 'node:vm';

// What a handler makes per request must die in the young generation: what survives two
// scavenges is garbage only a full collection frees (BENCHMARKS.md#what-promotes-a-request).

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;

/** A mebibyte, the unit the young-generation checks compare in. */
export const MB = 1024 * 1024;

/** Bytes in use outside the young generation. */
const outsideYoung = () =>
  v8
    .getHeapSpaceStatistics()
    .filter((space) => !space.space_name.startsWith('new'))
    .reduce((sum, space) => sum + space.space_used_size, 0);

/** How much `make`, called `n` times with nothing kept, leaves outside the young generation once two scavenges ran. */
function leftOnce(make: (i: number) => void, n: number): number {
  gc();
  const before = outsideYoung();
  for (let i = 0; i < n; i++) make(i);
  gc({ type: 'minor' });
  gc({ type: 'minor' });
  return outsideYoung() - before;
}

/**
 * What `make`, called `n` times (50,000 unless told), leaves outside the young generation: the
 * median of three runs, since a collection V8 starts by itself in the middle of one run (the
 * other test files' workers share the machine) moves that run only.
 */
export function leftOutsideYoung(make: (i: number) => void, n = 50_000): number {
  const runs = [leftOnce(make, n), leftOnce(make, n), leftOnce(make, n)].sort((a, b) => a - b);
  return runs[1]!;
}
