import { fileURLToPath } from 'node:url';
import { runProcess } from '../../run-process.js';
import type { LoadResult } from './load-generator.js';
import type { OpenLoopRequest } from './open-loop.js';

// From `dist/` whether this module runs compiled or from `src/` (in the tests).
const main = fileURLToPath(new URL('../../../dist/http/load/open-loop-main.js', import.meta.url));

/**
 * Runs {@link OpenLoopRequest} in its own Node process (see `open-loop.ts`) and reads its result.
 *
 * @example
 * ```ts
 * const result = await runOpenLoopProcess({ url, method: 'GET', headers: {}, seconds: 4, connections: 16, rate: 2000 });
 * ```
 */
export async function runOpenLoopProcess(request: OpenLoopRequest): Promise<LoadResult> {
  const output = await runProcess(process.execPath, [main, JSON.stringify(request)], (request.seconds + 30) * 1000);
  const line = output.stdout.trim().split('\n').at(-1);
  if (output.code !== 0 || line === undefined || line === '') {
    throw new Error(`the open-loop load printed no result (${output.error ?? `exit ${output.code}`}): ${output.stderr.trim()}`);
  }
  return JSON.parse(line) as LoadResult;
}
