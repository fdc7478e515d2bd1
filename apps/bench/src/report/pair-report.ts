import type { Round, Sample } from '../alternate.js';
import type { Spread } from '../stats.js';
import type { Target, Verdict } from '../targets.js';

/**
 * One measured pair as the table and the JSON file show it.
 *
 * @example
 * ```ts
 * const report: PairReport = {
 *   section: 'in-process', id: 'bearer', group: 'readers', a: 'bare procedure', b: 'password bearer',
 *   metrics: ['cpuNsPerCall'], ratios: { cpuNsPerCall: { median: 1.2, min: 1.1, max: 1.3 } },
 *   aMedian: { cpuNsPerCall: 900 }, bMedian: { cpuNsPerCall: 1080 }, rounds: [], verdict: 'none',
 * };
 * ```
 */
export interface PairReport {
  section: 'in-process' | 'http';
  id: string;
  group: string;
  /** Side A (the reference) and side B, by label. */
  a: string;
  b: string;
  metrics: string[];
  /** B over A per metric: median and range over the rounds. */
  ratios: Record<string, Spread>;
  aMedian: Record<string, number>;
  bMedian: Record<string, number>;
  rounds: Round<Sample>[];
  target?: Target;
  verdict: Verdict;
  note?: string;
  /** Runs that saw error answers or socket errors: their figures are not to be trusted. */
  warnings?: string[];
  /** Why the pair was not measured (a peer not installed, a route answering an error…). */
  skipped?: string;
}
