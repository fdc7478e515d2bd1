/**
 * The middle of `values` (mean of the two middle values for an even count); `NaN` when empty.
 *
 * @example
 * ```ts
 * median([3, 1, 2]); // 2
 * ```
 */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * The median and range of a set of ratios, one per round.
 *
 * @example
 * ```ts
 * const spread: Spread = summarize([1.01, 0.99, 1.02]); // { median: 1.01, min: 0.99, max: 1.02 }
 * ```
 */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/**
 * Median, minimum and maximum of `values`.
 *
 * @example
 * ```ts
 * summarize([1.01, 0.99, 1.02]).median; // 1.01
 * ```
 */
export function summarize(values: readonly number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}
