import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { readProcStats, type ProcStats } from './proc-stats.js';

/**
 * How to start one server process; it must print `{"port": n}` as its first stdout line, stop
 * on SIGTERM, and exit when its stdin reaches its end (the bench is gone).
 *
 * @example
 * ```ts
 * const spec: ServerSpec = { name: 'rest', command: process.execPath, args: ['dist/http/server-main.js', 'rest'] };
 * ```
 */
export interface ServerSpec {
  name: string;
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>>;
  /** Whether it answers commands on stdin with one JSON line each (our Node servers: `answerCommand`). */
  answersCommands?: boolean;
}

/**
 * A started server process.
 *
 * @example
 * ```ts
 * const server: RunningServer = await startServer(spec);
 * await fetch(`${server.origin}/bare`);
 * await server.stop();
 * ```
 */
export interface RunningServer {
  name: string;
  pid: number;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  stats(): ProcStats;
  /** Sends a command line and returns its JSON answer; `null` for a server without commands, or no answer. */
  ask(command: string): Promise<Record<string, unknown> | null>;
  /** The heap in use after a full collection, in KiB; `null` for a server that cannot tell. */
  heapAfterGc(): Promise<number | null>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
// A bench that dies half-way must not leave servers behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts `spec` and waits (at most `timeoutMs`) for the port it prints.
 *
 * @example
 * ```ts
 * const server = await startServer({ name: 'node-http', command: process.execPath, args: [serverMain, 'node-http'] });
 * ```
 */
export function startServer(spec: ServerSpec, timeoutMs = 20_000): Promise<RunningServer> {
  const child = spawn(spec.command, spec.args, {
    env: { ...process.env, ...spec.env },
    // The server exits when its stdin closes: a bench killed outright leaves no server behind.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  exited.then(() => running.delete(child));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise<RunningServer>((resolve, reject) => {
    const fail = (why: string) => {
      void stop();
      reject(new Error(`${spec.name}: ${why}${stderr.trim() ? `\n${stderr.trim()}` : ''}`));
    };
    const timer = setTimeout(() => fail(`no port within ${timeoutMs} ms`), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      fail(error.message);
    });
    const exitedEarly = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      fail(`exited (${signal ?? code}) before listening`);
    };
    child.once('exit', exitedEarly);
    const lines = createInterface({ input: child.stdout! });
    const nextLine = (ms: number) =>
      new Promise<string | null>((resolve) => {
        const wait = setTimeout(() => {
          lines.off('line', take);
          resolve(null);
        }, ms);
        const take = (line: string) => {
          clearTimeout(wait);
          resolve(line);
        };
        lines.once('line', take);
      });
    // Commands are answered in order, one at a time.
    let queue: Promise<unknown> = Promise.resolve();
    const ask = (command: string) => {
      const asked = queue.then(async () => {
        if (spec.answersCommands !== true || child.exitCode !== null) return null;
        const answer = nextLine(30_000);
        child.stdin!.write(`${command}\n`);
        try {
          const parsed: unknown = JSON.parse((await answer) ?? '');
          return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : null;
        } catch {
          return null;
        }
      });
      queue = asked;
      return asked;
    };
    const heapAfterGc = async () => {
      const heapUsedKiB = (await ask('heap'))?.heapUsedKiB;
      return typeof heapUsedKiB === 'number' ? heapUsedKiB : null;
    };
    lines.once('line', (line) => {
      clearTimeout(timer);
      child.off('exit', exitedEarly);
      let port: unknown;
      try {
        port = (JSON.parse(line) as { port?: unknown }).port;
      } catch {
        // reported below
      }
      if (typeof port !== 'number') return fail(`expected {"port": n} on the first line, got ${JSON.stringify(line)}`);
      resolve({
        name: spec.name,
        pid: child.pid!,
        origin: `http://127.0.0.1:${port}`,
        stats: () => readProcStats(child.pid!),
        ask,
        heapAfterGc,
        stop,
      });
    });
  });
}
