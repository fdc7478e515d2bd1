import autocannonRun from 'autocannon';
import type { LoadGenerator, LoadRequest, LoadResult } from './load-generator.js';

/**
 * autocannon (npm), run through its API in the bench process: starting its command line takes
 * a Node process per run (about half a second on a busy 2-core machine, more than a smoke run's
 * load), and the bench process does nothing else while a run lasts; the servers it loads and
 * measures are processes of their own either way. Its latency histogram counts whole
 * milliseconds, so its p99 is coarse; it takes fractions of a second, which wrk does not.
 *
 * @example
 * ```ts
 * const generator = autocannon('8.0.0');
 * ```
 */
export function autocannon(version: string): LoadGenerator {
  return {
    name: 'autocannon',
    version,
    latencyResolutionUs: 1000,
    async run(request: LoadRequest): Promise<LoadResult> {
      const raw = await autocannonRun({
        url: request.url,
        method: request.method,
        headers: { ...request.headers },
        ...(request.body === undefined ? {} : { body: request.body }),
        connections: request.connections,
        duration: request.seconds,
        // autocannon ends a run on its sampling tick (1 s by default): tick four times a run.
        sampleInt: Math.min(1000, Math.max(25, Math.round((request.seconds * 1000) / 4))),
      });
      return {
        requests: raw.requests.total,
        seconds: raw.duration,
        rps: raw.requests.total / raw.duration,
        p50Us: raw.latency.p50 * 1000,
        p99Us: raw.latency.p99 * 1000,
        non2xx: raw.non2xx,
        // autocannon counts a timeout among its errors too.
        errors: raw.errors,
      };
    },
  };
}
