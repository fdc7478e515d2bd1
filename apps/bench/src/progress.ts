/**
 * The progress line: which case of how many, and what it is doing now. On a terminal the line
 * is rewritten in place; otherwise (CI, a log file) each step is its own line.
 *
 * @example
 * ```ts
 * const progress = createProgress(12, process.stderr);
 * progress.start('in-process: bare vs bearer');
 * progress.step('round 1/5, side A');
 * progress.done();
 * ```
 */
export interface Progress {
  /** A new case begins. */
  start(title: string): void;
  /** What the current case is doing. */
  step(detail: string): void;
  /** A message that must stay on screen (a skipped peer, an installation). */
  note(message: string): void;
  /** Clears the line at the end. */
  done(): void;
}

/**
 * A progress line on `stream` for `total` cases; `null` gives a silent one.
 *
 * @example
 * ```ts
 * const progress = createProgress(3, process.stderr);
 * ```
 */
export function createProgress(total: number, stream: NodeJS.WriteStream | null): Progress {
  const started = Date.now();
  let index = 0;
  let title = '';
  const interactive = stream?.isTTY === true;
  const write = (detail: string) => {
    if (stream === null) return;
    const seconds = ((Date.now() - started) / 1000).toFixed(0).padStart(4);
    const line = `[${String(index).padStart(2)}/${total} ${seconds}s] ${title}${detail ? ` — ${detail}` : ''}`;
    if (interactive) stream.write(`\r\x1b[K${line.slice(0, (stream.columns || 120) - 1)}`);
    else stream.write(`${line}\n`);
  };
  return {
    start(next) {
      index++;
      title = next;
      write('');
    },
    step(detail) {
      if (interactive) write(detail);
    },
    note(message) {
      if (stream === null) return;
      stream.write(interactive ? `\r\x1b[K${message}\n` : `${message}\n`);
    },
    done() {
      if (interactive) stream?.write('\r\x1b[K');
    },
  };
}
