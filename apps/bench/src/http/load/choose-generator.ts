import { createRequire } from 'node:module';
import { aptInstall } from '../../apt-install.js';
import { runProcess } from '../../run-process.js';
import { autocannon } from './autocannon.js';
import type { LoadGenerator } from './load-generator.js';
import { wrk } from './wrk.js';

const wrkVersion = async () => {
  // `wrk --version` prints its banner and exits with 1.
  const output = await runProcess('wrk', ['--version'], 10_000);
  return /wrk (\S+)/.exec(output.stdout)?.[1] ?? null;
};

/**
 * Picks the load generator: wrk when asked for and present (installed with apt-get when
 * `install` allows), else autocannon, with a note saying why.
 *
 * @example
 * ```ts
 * const generator = await chooseGenerator({ prefer: 'wrk', install: true, note: console.error });
 * ```
 */
export async function chooseGenerator(opts: {
  prefer: 'wrk' | 'autocannon';
  install: boolean;
  note: (message: string) => void;
}): Promise<LoadGenerator> {
  if (opts.prefer === 'wrk') {
    let version = await wrkVersion();
    if (version === null && opts.install) {
      opts.note('wrk is missing: installing it with apt-get…');
      const outcome = await aptInstall(['wrk']);
      if (!outcome.ok) opts.note(outcome.message);
      version = await wrkVersion();
    }
    if (version !== null) return wrk(version);
    opts.note('wrk is not available: using autocannon (p99 in whole milliseconds)');
  }
  const { version } = createRequire(import.meta.url)('autocannon/package.json') as { version: string };
  return autocannon(version);
}
