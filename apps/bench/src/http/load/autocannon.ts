import { createRequire } from 'node:module';
import { runProcess } from '../../run-process.js';
import type { LoadGenerator, LoadRequest, LoadResult } from './load-generator.js';

const cli = createRequire(import.meta.url).resolve('autocannon');

/** The part of `autocannon --json` this reads. */
interface AutocannonJson {
  requests: { total: number };
  duration: number;
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}

/**
 * autocannon (npm), run as its own Node process. Its latency histogram counts whole
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
      // autocannon ends a run on its sampling tick (1 s by default): tick four times a run.
      const sampleMs = Math.min(1000, Math.max(25, Math.round((request.seconds * 1000) / 4)));
      const args = [cli, '--json', '-c', String(request.connections), '-d', String(request.seconds), '-L', String(sampleMs), '-m', request.method];
      for (const [name, value] of Object.entries(request.headers)) args.push('-H', `${name}=${value}`);
      if (request.body !== undefined) args.push('-b', request.body);
      args.push(request.url);
      const output = await runProcess(process.execPath, args, (request.seconds + 30) * 1000);
      let raw: AutocannonJson;
      try {
        raw = JSON.parse(output.stdout) as AutocannonJson;
      } catch {
        throw new Error(`autocannon printed no result (${output.error ?? `exit ${output.code}`}): ${output.stderr.trim().slice(-500)}`);
      }
      return {
        requests: raw.requests.total,
        seconds: raw.duration,
        rps: raw.requests.total / raw.duration,
        p50Us: raw.latency.p50 * 1000,
        p99Us: raw.latency.p99 * 1000,
        non2xx: raw.non2xx,
        errors: raw.errors + raw.timeouts,
      };
    },
  };
}
