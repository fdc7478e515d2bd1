import { parseArgs } from 'node:util';
import type { SoakOptions } from './run.js';

/**
 * `npm run soak`'s defaults: one minute on 100 connections after a 10-second warm-up, with two
 * login loops (each login costs a ~250 ms password hash, so they stay a small share).
 *
 * @example
 * ```ts
 * DEFAULT_SOAK_OPTIONS.durationSeconds; // 60
 * ```
 */
export const DEFAULT_SOAK_OPTIONS: Readonly<SoakOptions> = Object.freeze({
  durationSeconds: 60,
  warmupSeconds: 10,
  connections: 100,
  loginConcurrency: 2,
  instances: 1,
});

const SETTINGS = {
  duration: { key: 'durationSeconds', env: 'SOAK_DURATION', min: 1, max: 3_600 },
  warmup: { key: 'warmupSeconds', env: 'SOAK_WARMUP', min: 1, max: 600 },
  connections: { key: 'connections', env: 'SOAK_CONNECTIONS', min: 1, max: 1_000 },
  logins: { key: 'loginConcurrency', env: 'SOAK_LOGINS', min: 1, max: 16 },
  // Each server keeps up to 10 connections to PostgreSQL, which the soak starts with 60.
  instances: { key: 'instances', env: 'SOAK_INSTANCES', min: 1, max: 4 },
} as const satisfies Record<string, { key: keyof SoakOptions; env: string; min: number; max: number }>;

/**
 * What `npm run soak` was asked: `--duration`, `--warmup` (seconds), `--connections`,
 * `--logins` (login loops), `--instances` (demo servers, on one PostgreSQL server when more
 * than one) and `--json <file>` (where to save the report), or the environment variables
 * `SOAK_DURATION`, `SOAK_WARMUP`, `SOAK_CONNECTIONS`, `SOAK_LOGINS`, `SOAK_INSTANCES`; a flag wins over
 * the environment, either over {@link DEFAULT_SOAK_OPTIONS}. Anything malformed throws.
 *
 * @example
 * ```ts
 * soakArguments(['--duration', '5', '--connections', '10'], {}).options.durationSeconds; // 5
 * ```
 */
export function soakArguments(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): { options: SoakOptions; jsonFile: string | undefined } {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      logins: { type: 'string' },
      instances: { type: 'string' },
      json: { type: 'string' },
    },
  });
  const options: SoakOptions = { ...DEFAULT_SOAK_OPTIONS };
  for (const [flag, { key, env: name, min, max }] of Object.entries(SETTINGS)) {
    const given = values[flag as keyof typeof SETTINGS] ?? env[name];
    if (given === undefined || given === '') continue;
    const value = Number(given);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new RangeError(`--${flag} (${name}) must be an integer from ${min} to ${max}, got ${JSON.stringify(given)}`);
    }
    options[key] = value;
  }
  if (options.connections < (options.instances ?? 1)) {
    throw new RangeError(`--connections (${options.connections}) must be at least --instances (${options.instances})`);
  }
  return { options, jsonFile: values.json };
}
