import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { SOAK_PASSWORD_BUDGET } from '../../soak/server-settings.js';
import { start, type RunningDemo, type StartOptions } from '../../src/server/start.js';

/** A demo server for one test file: loopback, a port the OS picks, a fresh data directory. */
export interface TestDemo extends RunningDemo {
  dataDir: string;
  /** Stops the server and deletes its data directory. */
  stop(): Promise<void>;
}

/**
 * The password budget of test servers unless a test gives its own: out of reach, since tests log
 * the same users in many times a second from 127.0.0.1 (the budget has its own tests).
 */
const OUT_OF_REACH = SOAK_PASSWORD_BUDGET;

/** Makes a temporary data directory (the caller removes it). */
export const tempDataDir = () => mkdtemp(join(tmpdir(), 'trpc-oauth2-demo-'));

/**
 * Starts the real server in-process on 127.0.0.1, at the port the OS picks unless `options.port`
 * says; with `dataDir`, on that directory (kept on `stop`); `options` change other settings (the
 * login throttle, its clock).
 */
export async function startTestDemo(dataDir?: string, options: StartOptions = {}): Promise<TestDemo> {
  const dir = dataDir ?? (await tempDataDir());
  const demo = await start({ passwordBudget: OUT_OF_REACH, ...options, host: '127.0.0.1', port: options.port ?? 0, dataDir: dir });
  return {
    ...demo,
    dataDir: dir,
    stop: async () => {
      await demo.close();
      if (dataDir === undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Time allowed to start or stop a server: a new PGlite data directory takes seconds, more on a
 * busy machine. Pass it to `beforeAll`/`afterAll` (the project sets no timeouts of its own).
 */
export const SERVER_TIMEOUT_MS = 60_000;

/** Time allowed to one test against a server: logins run a deliberately slow password hash. */
export const TEST_TIMEOUT_MS = 20_000;

/**
 * One demo server for the calling test file, as {@link startTestDemo} starts it: started before
 * the file's tests, stopped (and its data directory deleted) after them. The object returned is
 * filled in once the server has started, so tests read `demo.url` as usual.
 */
export function demoForThisFile(options: StartOptions = {}): TestDemo {
  const demo = {} as TestDemo;
  beforeAll(async () => {
    Object.assign(demo, await startTestDemo(undefined, options));
  }, SERVER_TIMEOUT_MS);
  afterAll(() => demo.stop?.(), SERVER_TIMEOUT_MS);
  return demo;
}
