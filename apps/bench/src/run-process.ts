import { spawn } from 'node:child_process';

/**
 * What a finished process printed and how it ended.
 *
 * @example
 * ```ts
 * const output: ProcessOutput = { code: 0, stdout: 'wrk 4.1.0', stderr: '', error: null };
 * ```
 */
export interface ProcessOutput {
  /** Exit code; `null` when it was killed or never started. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Why it never started or was killed (not found, timed out). */
  error: string | null;
}

/**
 * Runs a command to its end, killing it after `timeoutMs`; never rejects.
 *
 * @example
 * ```ts
 * const { code, stdout } = await runProcess('wrk', ['--version'], 5_000);
 * ```
 */
export function runProcess(
  command: string,
  args: readonly string[],
  timeoutMs: number,
  env?: Readonly<Record<string, string>>,
): Promise<ProcessOutput> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    let error: string | null = null;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      error = `timed out after ${timeoutMs} ms`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (cause) => {
      error = cause.message;
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: error === null ? code : null, stdout, stderr, error });
    });
  });
}
