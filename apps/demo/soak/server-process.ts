import { fork } from 'node:child_process';
import type { SoakCommand, SoakServerMessage } from './ipc-messages.js';
import type { MemorySample, SoakTarget } from './run.js';

/**
 * The demo server running in a child process for a soak.
 *
 * @example
 * ```ts
 * const server: SoakServerProcess = await forkSoakServer(dataDir);
 * await server.stop();
 * ```
 */
export interface SoakServerProcess extends SoakTarget {
  pid: number;
  /** Asks the server to close, and waits until the process has exited. */
  stop(): Promise<void>;
}

// A server that does not exit this long after being asked to is killed.
const STOP_GRACE_MS = 10_000;

/**
 * Starts `server.js` (the soak server) in a child process with `dataDir` as its data directory,
 * `env` added to this process's environment (`DATABASE_URL`, say) and `--expose-gc`, and
 * resolves once it listens. Memory is read in the child, so the load generator in this process
 * does not count.
 *
 * @example
 * ```ts
 * const server = await forkSoakServer(await mkdtemp(join(tmpdir(), 'soak-')));
 * const report = await runSoak(server, options);
 * ```
 */
export async function forkSoakServer(dataDir: string, env: Readonly<Record<string, string>> = {}): Promise<SoakServerProcess> {
  const child = fork(new URL('./server.js', import.meta.url), [], {
    execArgv: ['--expose-gc'],
    env: { ...process.env, ...env, DATA_DIR: dataDir },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const next = <T extends SoakServerMessage['type']>(type: T) =>
    new Promise<Extract<SoakServerMessage, { type: T }>>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the soak server exited (code ${code}) before answering`));
      child.once('exit', onExit);
      child.once('message', (message: SoakServerMessage) => {
        child.off('exit', onExit);
        if (message.type === type) resolve(message as Extract<SoakServerMessage, { type: T }>);
        else reject(new Error(`the soak server answered ${message.type}, not ${type}`));
      });
    });
  const command = (message: SoakCommand) => child.send(message);
  const { url } = await next('ready');
  return {
    url,
    pid: child.pid!,
    memory: async (): Promise<MemorySample> => {
      const answer = next('memory');
      command({ type: 'memory' });
      const { rss, heapUsed, collected } = await answer;
      return { rss, heapUsed, collected };
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      if (child.connected) command({ type: 'stop' });
      else child.kill('SIGTERM');
      await exited;
      clearTimeout(kill);
    },
  };
}
