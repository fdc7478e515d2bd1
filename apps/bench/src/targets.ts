/**
 * A target a measured ratio must meet: at most or at least a bound.
 *
 * @example
 * ```ts
 * const target: Target = { metric: 'cpuNsPerCall', atMost: 1.05, text: '≤ 1.05×' };
 * ```
 */
export interface Target {
  /** The metric whose B/A median ratio is checked. */
  metric: string;
  atMost?: number;
  atLeast?: number;
  /** How the table states it. */
  text: string;
}

/**
 * Whether a ratio meets its target: `met`, `missed`, or `none` when the pair has no target.
 *
 * @example
 * ```ts
 * const verdict: Verdict = 'missed';
 * ```
 */
export type Verdict = 'met' | 'missed' | 'none';

/**
 * Checks the median ratio of `target.metric` against `target`.
 *
 * @example
 * ```ts
 * verdict({ metric: 'rps', atLeast: 0.97, text: '≥ 0.97×' }, { rps: 0.985 }); // 'met'
 * ```
 */
export function verdict(target: Target | undefined, medians: Readonly<Record<string, number>>): Verdict {
  if (target === undefined) return 'none';
  const value = medians[target.metric];
  if (value === undefined || !Number.isFinite(value)) return 'missed';
  if (target.atMost !== undefined && value > target.atMost) return 'missed';
  if (target.atLeast !== undefined && value < target.atLeast) return 'missed';
  return 'met';
}
