import { format } from 'node:util';

/** Everything the process printed while captured, and how to stop capturing. */
export interface CapturedOutput {
  /** All console calls (formatted as Node prints them, stacks and causes included) and stream writes. */
  text(): string;
  restore(): void;
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/**
 * Captures the console and `process.stdout`/`process.stderr` of this process (the servers under
 * test run in it), instead of printing them.
 */
export function captureOutput(): CapturedOutput {
  const lines: string[] = [];
  const originals = CONSOLE_METHODS.map((method) => [method, console[method]] as const);
  for (const method of CONSOLE_METHODS) console[method] = (...args: unknown[]) => void lines.push(format(...args));
  const streams = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write;
    stream.write = ((chunk: unknown) => {
      lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return true;
    }) as typeof stream.write;
    return [stream, write] as const;
  });
  return {
    text: () => lines.join('\n'),
    restore() {
      for (const [method, original] of originals) console[method] = original;
      for (const [stream, write] of streams) stream.write = write;
    },
  };
}
