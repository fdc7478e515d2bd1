import type { HttpBudget, ServerReport } from '../http/suite.js';
import type { InProcessBudget } from '../in-process/suite.js';
import type { Machine } from '../machine.js';
import type { BenchOptions, ProfileBudget } from '../options.js';
import type { ProfileReport } from '../profile/suite.js';
import type { TimeSplit } from './breakdown.js';
import type { PairReport } from './pair-report.js';
import type { TailRow } from './tails.js';

/**
 * Everything one run measured: the JSON result file holds exactly this.
 *
 * @example
 * ```ts
 * const results: BenchResults = await runBench(FULL, progress);
 * results.inProcess?.pairs.find((pair) => pair.id === 'bearer-two-scopes')?.verdict;
 * ```
 */
export interface BenchResults {
  format: 'trpc-oauth2-bench/1';
  mode: BenchOptions['mode'];
  startedAt: string;
  seconds: number;
  machine: Machine;
  /** Load averages when the run ended. */
  loadAverageAtEnd: number[];
  inProcess: {
    budget: InProcessBudget;
    pairs: PairReport[];
    /** The bench process's own resident set size around the in-process section, in KiB. */
    rssKiB: { before: number; after: number };
  } | null;
  http: {
    budget: HttpBudget;
    generator: { name: string; version: string; latencyResolutionUs: number };
    peer: { versions: Record<string, string>; skipped: Record<string, string> };
    /** The version of the LTS Node the `rest-lts` server ran on, when one ran. */
    ltsNode?: string;
    pairs: PairReport[];
    servers: ServerReport[];
    timeSplits: TimeSplit[];
    /** The verified routes' latency tails, and what their servers' event loops and GCs did. */
    tails: TailRow[];
  } | null;
  profiles: {
    budget: ProfileBudget;
    generator: string;
    reports: ProfileReport[];
  } | null;
  /** Things the reader must know: installations, fallbacks, skipped peers. */
  notes: string[];
}
