import { runProcess } from './run-process.js';

/**
 * Whether an installation worked, and what to tell the reader when it did not.
 *
 * @example
 * ```ts
 * const outcome: InstallOutcome = { ok: false, message: 'apt-get is not available here' };
 * ```
 */
export interface InstallOutcome {
  ok: boolean;
  message: string;
}

const APT_ENV = { DEBIAN_FRONTEND: 'noninteractive' };
const FIVE_MINUTES = 300_000;

/**
 * Installs Debian packages with apt-get, non-interactively; refreshes the package lists once if
 * the first attempt fails. Never throws: without apt-get, or not as root, it says so instead.
 *
 * @example
 * ```ts
 * const { ok, message } = await aptInstall(['wrk']);
 * ```
 */
export async function aptInstall(packages: readonly string[]): Promise<InstallOutcome> {
  const manual = `install them yourself: apt-get install ${packages.join(' ')}`;
  if (process.platform !== 'linux') return { ok: false, message: `not on Linux; ${manual}` };
  if (process.getuid?.() !== 0) return { ok: false, message: `not running as root; ${manual}` };
  const probe = await runProcess('apt-get', ['--version'], 10_000);
  if (probe.code !== 0) return { ok: false, message: `apt-get is not available (${probe.error ?? `exit ${probe.code}`}); ${manual}` };
  const install = () => runProcess('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], FIVE_MINUTES, APT_ENV);
  let result = await install();
  if (result.code !== 0) {
    await runProcess('apt-get', ['update', '-q'], FIVE_MINUTES, APT_ENV);
    result = await install();
  }
  if (result.code === 0) return { ok: true, message: `installed ${packages.join(' ')}` };
  const why = result.error ?? (result.stderr.trim().split('\n').pop() || `exit ${result.code}`);
  return { ok: false, message: `apt-get install ${packages.join(' ')} failed (${why}); ${manual}` };
}
