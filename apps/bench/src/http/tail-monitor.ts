import { monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';

/**
 * Where a server's tail latency comes from, over one load run: how late its event loop ran
 * (a stall delays every request queued behind it) and the garbage collector's pauses.
 *
 * @example
 * ```ts
 * const tail: TailReport = { loopDelayP99Us: 1_800, loopDelayMaxUs: 12_000, gcPauseMs: 35, gcMaxPauseMs: 4.1, gcCount: 60 };
 * ```
 */
export interface TailReport {
  /** 99th percentile of the event loop's delay, sampled every 10 ms. */
  loopDelayP99Us: number;
  loopDelayMaxUs: number;
  /** Total, longest and number of GC pauses. */
  gcPauseMs: number;
  gcMaxPauseMs: number;
  gcCount: number;
}

let histogram: IntervalHistogram | undefined;
let observer: PerformanceObserver | undefined;
let gc = { total: 0, max: 0, count: 0 };

/**
 * Starts watching the event loop and the GC (the `tail-start` command of a bench server).
 *
 * @example
 * ```ts
 * startTailMonitor(); // … load … stopTailMonitor()
 * ```
 */
export function startTailMonitor(): void {
  stopTailMonitor();
  // Sampled every 10 ms: a 1 ms timer costs an idle-ish server enough CPU per second to show in
  // its CPU time per request (the capacity figures), and FastAPI runs no such timer.
  histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  gc = { total: 0, max: 0, count: 0 };
  observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.total += entry.duration;
      gc.max = Math.max(gc.max, entry.duration);
      gc.count++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}

/**
 * Stops watching and reports what it saw since {@link startTailMonitor}; `null` if it was not started.
 *
 * @example
 * ```ts
 * const tail = stopTailMonitor();
 * ```
 */
export function stopTailMonitor(): TailReport | null {
  if (histogram === undefined) return null;
  histogram.disable();
  observer?.disconnect();
  const report: TailReport = {
    loopDelayP99Us: histogram.percentile(99) / 1000,
    loopDelayMaxUs: histogram.max / 1000,
    gcPauseMs: gc.total,
    gcMaxPauseMs: gc.max,
    gcCount: gc.count,
  };
  histogram = undefined;
  observer = undefined;
  return report;
}
