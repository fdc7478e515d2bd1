import { spawn } from 'node:child_process';

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
 * Runs a command to its end (no shell), with the environment given on top of this one.
 *
 * @example
 * ```ts
 * const { code, stdout } = await run('npm', ['pack', '--json'], { cwd: packageDir });
 * ```
 */
export function run(command: string, args: readonly string[], options: { cwd: string; env?: Record<string, string> }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
