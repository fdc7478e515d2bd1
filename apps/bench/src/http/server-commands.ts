import { startProfiler, stopProfiler } from '../profile/inspector-profiler.js';
import { startTailMonitor, stopTailMonitor } from './tail-monitor.js';

/**
 * What a bench server answers on stdin, one JSON line per command:
 * - `heap`: `{"heapUsedKiB": n}`, the heap in use after a full collection (the process must run
 *   with --expose-gc; `null` otherwise): it tells a heap that grew and stays from one that only
 *   has not been collected yet;
 * - `profile-start`: starts the CPU profiler (`{"profiling": true}`), so that a profile leaves
 *   start-up and warm-up out;
 * - `tail-start` / `tail-stop`: watches the event loop's delay and the GC's pauses over a load
 *   run (`{"tail": TailReport}`), to tell where the latency tail comes from;
 * - `profile-stop <file>`: stops it and writes the `.cpuprofile` to `file` (`{"profile": file}`).
 *
 * @example
 * ```ts
 * createInterface({ input: process.stdin }).on('line', (line) => void answerCommand(line).then(reply));
 * ```
 */
export async function answerCommand(line: string): Promise<Record<string, unknown> | null> {
  const [command, argument] = line.trim().split(/\s+/, 2);
  switch (command) {
    case 'heap': {
      const collect = (globalThis as { gc?: () => void }).gc;
      collect?.();
      return { heapUsedKiB: collect === undefined ? null : Math.round(process.memoryUsage().heapUsed / 1024) };
    }
    case 'profile-start':
      await startProfiler();
      return { profiling: true };
    case 'profile-stop':
      if (argument === undefined) return { error: 'profile-stop needs a file' };
      await stopProfiler(argument);
      return { profile: argument };
    case 'tail-start':
      startTailMonitor();
      return { tail: true };
    case 'tail-stop':
      return { tail: stopTailMonitor() };
    default:
      return null;
  }
}
