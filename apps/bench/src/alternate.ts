import type { Progress } from './progress.js';
import { summarize, type Spread } from './stats.js';

/**
 * One measurement of one side of a pair: named metrics (`cpuNsPerCall`, `rps`, `p99Us`, …).
 *
 * @example
 * ```ts
 * const sample: Sample = { cpuNsPerCall: 812.5 };
 * ```
 */
export type Sample = Readonly<Record<string, number>>;

/**
 * The two sides of each round, in the order they ran, and their ratios (side B over side A).
 *
 * @example
 * ```ts
 * const round: Round<Sample> = { order: ['A', 'B'], a: { cpuNsPerCall: 800 }, b: { cpuNsPerCall: 840 }, ratios: { cpuNsPerCall: 1.05 } };
 * ```
 */
export interface Round<$Sample extends Sample> {
  order: readonly ['A', 'B'] | readonly ['B', 'A'];
  a: $Sample;
  b: $Sample;
  ratios: Record<string, number>;
}

/**
 * A pair measured side by side: the same metric on A and B, in alternating order, round by
 * round, so that a slow spell of a shared machine falls on both sides.
 *
 * @example
 * ```ts
 * const result = await alternate({ rounds: 5, metrics: ['cpuNsPerCall'], measure: (side) => time(side === 'A' ? bare : guarded) });
 * result.ratios.cpuNsPerCall.median; // B's time over A's
 * ```
 */
export interface Alternated<$Sample extends Sample> {
  rounds: Round<$Sample>[];
  /** B over A, per metric: median and range over the rounds. */
  ratios: Record<string, Spread>;
  /** Each side's median per metric. */
  a: Record<string, number>;
  b: Record<string, number>;
}

/**
 * Runs `measure` on sides A and B for `rounds` rounds, A first in even rounds and B first in
 * odd ones, and returns B/A per metric and round.
 *
 * @example
 * ```ts
 * const { ratios } = await alternate({ rounds: 4, metrics: ['rps'], measure: (side) => load(side === 'A' ? bare : items) });
 * ```
 */
export async function alternate<$Sample extends Sample>(opts: {
  rounds: number;
  metrics: readonly string[];
  measure: (side: 'A' | 'B', round: number) => Promise<$Sample>;
  progress?: Progress;
}): Promise<Alternated<$Sample>> {
  const rounds: Round<$Sample>[] = [];
  for (let round = 0; round < opts.rounds; round++) {
    const order = round % 2 === 0 ? (['A', 'B'] as const) : (['B', 'A'] as const);
    const samples: Partial<Record<'A' | 'B', $Sample>> = {};
    for (const side of order) {
      opts.progress?.step(`round ${round + 1}/${opts.rounds}, side ${side}`);
      samples[side] = await opts.measure(side, round);
    }
    const a = samples.A!;
    const b = samples.B!;
    const ratios = Object.fromEntries(opts.metrics.map((metric) => [metric, b[metric]! / a[metric]!]));
    rounds.push({ order, a, b, ratios });
  }
  const pick = (side: 'a' | 'b' | 'ratios', metric: string) => rounds.map((round) => round[side][metric]!);
  return {
    rounds,
    ratios: Object.fromEntries(opts.metrics.map((metric) => [metric, summarize(pick('ratios', metric))])),
    a: Object.fromEntries(opts.metrics.map((metric) => [metric, summarize(pick('a', metric)).median])),
    b: Object.fromEntries(opts.metrics.map((metric) => [metric, summarize(pick('b', metric)).median])),
  };
}
