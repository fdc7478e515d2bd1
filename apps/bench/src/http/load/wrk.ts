import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '../../run-process.js';
import type { LoadGenerator, LoadRequest, LoadResult } from './load-generator.js';

const MARK = 'BENCH-RESULT ';

/** A Lua string literal holding `text` (every byte outside printable ASCII as a decimal escape). */
const lua = (text: string) =>
  `"${[...Buffer.from(text, 'utf8')].map((byte) => (byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c ? String.fromCharCode(byte) : `\\${byte}`)).join('')}"`;

/** The wrk script: the request, and a `done` hook printing the figures as one JSON line. */
const script = (request: LoadRequest) =>
  [
    `wrk.method = ${lua(request.method)}`,
    ...(request.body === undefined ? [] : [`wrk.body = ${lua(request.body)}`]),
    ...Object.entries(request.headers).map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`),
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    `  io.write(string.format('${MARK}{"requests":%d,"durationUs":%d,"non2xx":%d,"errors":%d,"p50Us":%d,"p99Us":%d}\\n',`,
    '    summary.requests, summary.duration, e.status, e.connect + e.read + e.write + e.timeout,',
    '    latency:percentile(50), latency:percentile(99)))',
    'end',
  ].join('\n');

/**
 * wrk (C, one thread): light enough to leave the server most of a 2-core machine. It counts
 * 4xx/5xx answers as `status` errors, reported here as `non2xx`.
 *
 * @example
 * ```ts
 * const generator = wrk('4.1.0');
 * ```
 */
export function wrk(version: string): LoadGenerator {
  return {
    name: 'wrk',
    version,
    latencyResolutionUs: 1,
    async run(request: LoadRequest): Promise<LoadResult> {
      const dir = mkdtempSync(join(tmpdir(), 'bench-wrk-'));
      try {
        const file = join(dir, 'request.lua');
        writeFileSync(file, script(request));
        const seconds = Math.max(1, Math.round(request.seconds));
        const args = ['-t1', `-c${request.connections}`, `-d${seconds}s`, '--timeout', '5s', '-s', file, request.url];
        const output = await runProcess('wrk', args, (seconds + 30) * 1000);
        const line = output.stdout.split('\n').find((l) => l.startsWith(MARK));
        if (line === undefined) throw new Error(`wrk printed no result (${output.error ?? `exit ${output.code}`}): ${output.stderr.trim() || output.stdout.trim()}`);
        const raw = JSON.parse(line.slice(MARK.length)) as { requests: number; durationUs: number; non2xx: number; errors: number; p50Us: number; p99Us: number };
        const elapsed = raw.durationUs / 1e6;
        return { requests: raw.requests, seconds: elapsed, rps: raw.requests / elapsed, p50Us: raw.p50Us, p99Us: raw.p99Us, non2xx: raw.non2xx, errors: raw.errors };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
