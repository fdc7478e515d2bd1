import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchRoot = fileURLToPath(new URL('../', import.meta.url));

const newest = (dir: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? newest(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs,
    ),
  );

/**
 * The HTTP servers run as their own Node processes from the compiled `dist/`: compile it when it
 * is missing or older than `src/` (`npm test` has built it already; a lone `vitest run` may not).
 */
export function buildBenchOnce(): void {
  const serverMain = join(benchRoot, 'dist/http/server-main.js');
  const peerDir = join(benchRoot, 'peer');
  if (existsSync(serverMain) && statSync(serverMain).mtimeMs >= Math.max(newest(join(benchRoot, 'src')), newest(peerDir))) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(benchRoot, 'tsconfig.build.json')], { stdio: 'inherit' });
}
