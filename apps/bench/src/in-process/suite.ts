import { alternate } from '../alternate.js';
import type { Progress } from '../progress.js';
import type { PairReport } from '../report/pair-report.js';
import { verdict } from '../targets.js';
import { inProcessCases, type InProcessCase } from './cases.js';
import { timeCalls } from './time-calls.js';

/**
 * How long to time each side of each in-process pair.
 *
 * @example
 * ```ts
 * const budget: InProcessBudget = { rounds: 6, sideMs: 250, warmupMs: 300 };
 * ```
 */
export interface InProcessBudget {
  rounds: number;
  /** Time per side per round. */
  sideMs: number;
  /** Time each side is called before the first round, so that both are optimised alike. */
  warmupMs: number;
}

/**
 * The in-process pairs `runInProcess` would run, after `only` (case ids) filters them.
 *
 * @example
 * ```ts
 * selectInProcessCases(['bearer-two-scopes']);
 * ```
 */
export const selectInProcessCases = (only?: readonly string[]): InProcessCase[] =>
  inProcessCases().filter((c) => only === undefined || only.includes(c.id));

/**
 * Times every in-process pair (`createCaller`, no network), sides alternating round by round.
 *
 * @example
 * ```ts
 * const reports = await runInProcess({ rounds: 6, sideMs: 250, warmupMs: 300 }, progress);
 * ```
 */
export async function runInProcess(
  budget: InProcessBudget,
  progress: Progress,
  cases: readonly InProcessCase[] = selectInProcessCases(),
): Promise<PairReport[]> {
  const reports: PairReport[] = [];
  for (const c of cases) {
    progress.start(`in-process: ${c.a.label} vs ${c.b.label}`);
    progress.step('warm-up');
    await timeCalls(c.a.call, budget.warmupMs);
    await timeCalls(c.b.call, budget.warmupMs);
    const metrics = ['cpuNsPerCall'];
    const result = await alternate({
      rounds: budget.rounds,
      metrics,
      progress,
      measure: async (side) => ({ ...(await timeCalls(side === 'A' ? c.a.call : c.b.call, budget.sideMs)) }),
    });
    reports.push({
      section: 'in-process',
      id: c.id,
      group: c.group,
      a: c.a.label,
      b: c.b.label,
      metrics,
      ratios: result.ratios,
      aMedian: result.a,
      bMedian: result.b,
      rounds: result.rounds,
      ...(c.target === undefined ? {} : { target: c.target }),
      verdict: verdict(c.target, { cpuNsPerCall: result.ratios.cpuNsPerCall!.median }),
      ...(c.note === undefined ? {} : { note: c.note }),
    });
  }
  return reports;
}
