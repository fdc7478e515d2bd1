import type { HttpBudget } from './http/suite.js';
import type { InProcessBudget } from './in-process/suite.js';

/**
 * The parts of a run: in-process pairs, HTTP pairs, and CPU profiles of our servers under load.
 *
 * @example
 * ```ts
 * const sections: Section[] = ['in-process', 'profile'];
 * ```
 */
export type Section = 'in-process' | 'http' | 'profile';

const SECTIONS: readonly Section[] = ['in-process', 'http', 'profile'];

/**
 * How long each profiled route is loaded.
 *
 * @example
 * ```ts
 * const budget: ProfileBudget = { seconds: 4, warmupSeconds: 1, connections: 16 };
 * ```
 */
export interface ProfileBudget {
  seconds: number;
  /** Load before the profiler starts, so that the profile shows a warm server. */
  warmupSeconds: number;
  connections: number;
}

/**
 * Everything a run is told.
 *
 * @example
 * ```ts
 * const options: BenchOptions = { ...FULL, sections: ['in-process'] };
 * ```
 */
export interface BenchOptions {
  mode: 'full' | 'smoke';
  sections: readonly Section[];
  inProcess: InProcessBudget;
  http: HttpBudget;
  profile: ProfileBudget;
  /** Where to keep the `.cpuprofile` files; `null` deletes them once read. */
  profileDir: string | null;
  generator: 'wrk' | 'autocannon';
  /** Install missing Debian packages (wrk, the FastAPI peer) with apt-get. */
  install: boolean;
  /** The Python that runs the FastAPI peer (Debian's, where python3-fastapi installs). */
  python: string;
  /**
   * The Node binary the REST face also runs on, side by side with this one (`--lts-node`,
   * `BENCH_LTS_NODE`); without it, Node 24 fetched from the npm registry (see `prepareLtsNode`).
   */
  ltsNode?: string;
  /** Only the pairs with these ids (both sections); all when absent. */
  only?: readonly string[];
}

/**
 * `npm run bench`: about eleven minutes on a 2-core machine.
 *
 * @example
 * ```ts
 * await runBench(FULL, progress);
 * ```
 */
export const FULL: BenchOptions = {
  mode: 'full',
  sections: SECTIONS,
  inProcess: { rounds: 6, sideMs: 250, warmupMs: 300 },
  http: { rounds: 5, seconds: 2, warmupSeconds: 1, connections: 16 },
  profile: { seconds: 4, warmupSeconds: 1, connections: 16 },
  profileDir: null,
  generator: 'wrk',
  install: true,
  python: '/usr/bin/python3',
};

/**
 * The smoke run: the same code for a fraction of a second per case, installing nothing; its
 * figures mean nothing, only their shape is checked.
 *
 * @example
 * ```ts
 * await runBench(SMOKE, progress);
 * ```
 */
export const SMOKE: BenchOptions = {
  mode: 'smoke',
  sections: SECTIONS,
  inProcess: { rounds: 2, sideMs: 15, warmupMs: 5 },
  http: { rounds: 1, seconds: 0.15, warmupSeconds: 0, connections: 4 },
  profile: { seconds: 0.2, warmupSeconds: 0.05, connections: 4 },
  profileDir: null,
  generator: 'autocannon',
  install: false,
  python: '/usr/bin/python3',
};

const positive = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new Error(`${name} must be a positive number, got ${JSON.stringify(value)}`);
  return number;
};

const list = (value: string | undefined) =>
  value === undefined || value === '' ? undefined : value.split(',').map((item) => item.trim()).filter(Boolean);

/**
 * Reads the options from the command line (`--smoke`, `--key=value`) and `BENCH_*` variables
 * (npm does not pass arguments through the root script), the command line winning.
 *
 * @example
 * ```ts
 * parseOptions(['--smoke'], {}).mode;                 // 'smoke'
 * parseOptions([], { BENCH_ROUNDS: '3' }).http.rounds; // 3
 * ```
 */
export function parseOptions(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): BenchOptions {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (match === null) throw new Error(`unknown argument ${JSON.stringify(arg)}`);
    flags.set(match[1]!, match[2] ?? 'true');
  }
  const get = (flag: string) => flags.get(flag) ?? env[`BENCH_${flag.toUpperCase().replace(/-/g, '_')}`];
  const known = ['smoke', 'rounds', 'seconds', 'connections', 'generator', 'python', 'lts-node', 'no-install', 'only', 'sections', 'write-doc'];
  for (const flag of flags.keys()) if (!known.includes(flag)) throw new Error(`unknown option --${flag} (known: ${known.join(', ')})`);

  const base = get('smoke') === 'true' || get('smoke') === '1' ? SMOKE : FULL;
  const rounds = positive('rounds', get('rounds'));
  const seconds = positive('seconds', get('seconds'));
  const connections = positive('connections', get('connections'));
  const generator = get('generator') ?? base.generator;
  if (generator !== 'wrk' && generator !== 'autocannon') throw new Error(`generator must be wrk or autocannon, got ${generator}`);
  const sections = (list(get('sections')) ?? base.sections) as Section[];
  for (const section of sections) if (!SECTIONS.includes(section)) throw new Error(`unknown section ${section} (known: ${SECTIONS.join(', ')})`);
  const only = list(get('only'));
  return {
    ...base,
    sections,
    inProcess: { ...base.inProcess, ...(rounds === undefined ? {} : { rounds: Math.round(rounds) }) },
    http: {
      ...base.http,
      ...(rounds === undefined ? {} : { rounds: Math.round(rounds) }),
      ...(seconds === undefined ? {} : { seconds }),
      ...(connections === undefined ? {} : { connections: Math.round(connections) }),
    },
    profile: { ...base.profile, ...(connections === undefined ? {} : { connections: Math.round(connections) }) },
    generator,
    install: base.install && !['true', '1'].includes(get('no-install') ?? ''),
    python: get('python') ?? base.python,
    ...(get('lts-node') === undefined || get('lts-node') === '' ? {} : { ltsNode: get('lts-node') }),
    ...(only === undefined ? {} : { only }),
  };
}

/**
 * Whether to write the table into BENCHMARKS.md (`--write-doc` or `BENCH_WRITE_DOC=1`).
 *
 * @example
 * ```ts
 * wantsDocUpdate(['--write-doc'], {}); // true
 * ```
 */
export const wantsDocUpdate = (argv: readonly string[], env: Readonly<Record<string, string | undefined>>) =>
  argv.includes('--write-doc') || ['true', '1'].includes(env.BENCH_WRITE_DOC ?? '');
