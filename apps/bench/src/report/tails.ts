import type { Sample } from '../alternate.js';
import { SERVER_LABELS, targetLabel, type RouteId, type ServerId } from '../http/targets.js';
import { median } from '../stats.js';

/**
 * One target's latency tail over all its runs (medians of the runs), with what its server saw:
 * its event loop's delay and its GC's pauses (our Node servers and the Node peers; `NaN` for
 * FastAPI, which does not tell).
 *
 * @example
 * ```ts
 * const row: TailRow = { target: 'rest:itemsJwt', label: 'REST …', runs: 10, rps: 4100, p50Us: 3_500, p99Us: 9_000, loopDelayP99Us: 4_000, loopDelayMaxUs: 20_000, gcMsPerSecond: 30, gcMaxPauseMs: 5 };
 * ```
 */
export interface TailRow {
  target: string;
  label: string;
  runs: number;
  rps: number;
  p50Us: number;
  p99Us: number;
  loopDelayP99Us: number;
  loopDelayMaxUs: number;
  gcMsPerSecond: number;
  gcMaxPauseMs: number;
}

const FIELDS = ['rps', 'p50Us', 'p99Us', 'loopDelayP99Us', 'loopDelayMaxUs', 'gcMsPerSecond', 'gcMaxPauseMs'] as const;

/**
 * The tail rows of the verified-JWT targets that ran, in the order given. A target with a third
 * member reads the runs kept under that suffix and names it (an open-loop pair's runs:
 * `['rest', 'itemsJwt', '@tail-50-fastapi-fast-rest-itemsJwt', 'open loop, 50%']`).
 *
 * @example
 * ```ts
 * tailRows(section.samples, [['rest', 'itemsJwt'], ['fastapi-fast', 'itemsJwt']]);
 * ```
 */
export function tailRows(
  samples: Readonly<Record<string, Sample[]>>,
  targets: readonly (readonly [ServerId, RouteId] | readonly [ServerId, RouteId, string, string])[],
): TailRow[] {
  return targets.flatMap(([server, route, suffix = '', named]) => {
    const runs = samples[`${server}:${route}${suffix}`];
    if (runs === undefined || runs.length === 0) return [];
    const values = Object.fromEntries(
      FIELDS.map((field) => [field, median(runs.map((run) => run[field] ?? Number.NaN).filter(Number.isFinite))]),
    ) as Record<(typeof FIELDS)[number], number>;
    const label = server in SERVER_LABELS ? targetLabel(server, route) : `${server}:${route}`;
    return [{ target: `${server}:${route}${suffix}`, label: named === undefined ? label : `${label} (${named})`, runs: runs.length, ...values }];
  });
}
