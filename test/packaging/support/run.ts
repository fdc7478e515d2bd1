import { spawn } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';

/**
 * What a finished command printed and how it exited.
 *
 * @example
 * ```ts
 * const result: RunResult = { code: 0, stdout: 'ok\n', stderr: '' };
 * ```
 */
export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end (no shell), with the environment given on top of this one. With
 * `stdoutFile`, the command writes its output to that file rather than to a pipe: a program that
 * prints a long text and calls `process.exit()` (attw's JSON report) loses the end of it on a pipe
 * on some Node versions, and a file is written synchronously.
 *
 * @example
 * ```ts
 * const { code, stdout } = await run('npm', ['pack', '--json'], { cwd: packageDir });
 * ```
 */
export function run(command: string, args: readonly string[], options: { cwd: string; env?: Record<string, string>; stdoutFile?: string }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const file = options.stdoutFile === undefined ? undefined : openSync(options.stdoutFile, 'w');
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', file ?? 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const done = () => {
      if (file !== undefined) closeSync(file);
    };
    child.on('error', (error) => {
      done();
      reject(error);
    });
    child.on('close', (code) => {
      done();
      resolve({ code, stdout: file === undefined ? stdout : readFileSync(options.stdoutFile!, 'utf8'), stderr });
    });
  });
}
