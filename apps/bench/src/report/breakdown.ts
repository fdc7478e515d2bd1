import type { Sample } from '../alternate.js';
import { median } from '../stats.js';
import type { PairReport } from './pair-report.js';

/**
 * Where one protected request's server CPU time goes on one face, in microseconds.
 *
 * @example
 * ```ts
 * const row: TimeSplit = { face: 'rest', nodeHttp: 40, adapter: 60, securityOverHttp: 20, trpcLinks: 18, ours: 0.9, protectedTotal: 120 };
 * ```
 */
export interface TimeSplit {
  face: string;
  /** node:http and the kernel: the CPU time of the same answer from a bare node:http server. */
  nodeHttp: number;
  /** The adapter and tRPC's procedure call: the bare route's CPU time over node:http's. */
  adapter: number;
  /** What the protected route costs over the bare one on this face, measured over HTTP. */
  securityOverHttp: number;
  /** tRPC's own cost of three `.use()` links (in-process: three pass-through middlewares over none). */
  trpcLinks: number;
  /** The security layer's own code (in-process: reader + two scope links over three pass-through links). */
  ours: number;
  /** The protected route's CPU time per request over HTTP. */
  protectedTotal: number;
}

const cpu = (samples: Record<string, Sample[]>, id: string) =>
  median((samples[id] ?? []).map((sample) => sample.cpuUsPerRequest!).filter(Number.isFinite));

const delta = (pairs: readonly PairReport[], id: string) => {
  const pair = pairs.find((p) => p.id === id);
  const [a, b] = [pair?.aMedian.cpuNsPerCall, pair?.bMedian.cpuNsPerCall];
  return a === undefined || b === undefined ? Number.NaN : (b - a) / 1000;
};

/**
 * Splits each face's protected-request CPU time into node:http, the adapter, tRPC's middleware
 * links and the security layer's own code, from the HTTP runs' CPU times and the in-process pairs.
 *
 * @example
 * ```ts
 * const rows = timeSplits(['trpc-standalone', 'rest'], http.samples, inProcessPairs);
 * ```
 */
export function timeSplits(
  faces: readonly string[],
  samples: Record<string, Sample[]>,
  inProcess: readonly PairReport[],
): TimeSplit[] {
  const nodeHttp = cpu(samples, 'node-http:bare');
  const trpcLinks = delta(inProcess, 'three-pass-through');
  const ours = delta(inProcess, 'ours-vs-pass-through');
  return faces.map((face) => {
    const bare = cpu(samples, `${face}:bare`);
    const protectedTotal = cpu(samples, `${face}:items`);
    return { face, nodeHttp, adapter: bare - nodeHttp, securityOverHttp: protectedTotal - bare, trpcLinks, ours, protectedTotal };
  });
}
