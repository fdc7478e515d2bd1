import { readFileSync, readdirSync } from 'node:fs';

/**
 * A process's memory and CPU time as Linux's /proc reports them; each is `null` where /proc is
 * not available.
 *
 * @example
 * ```ts
 * const stats: ProcStats = { rssKiB: 61_440, peakRssKiB: 70_212, cpuNs: 1.2e9 };
 * ```
 */
export interface ProcStats {
  /** Resident set size now. */
  rssKiB: number | null;
  /** The largest resident set size so far (VmHWM). */
  peakRssKiB: number | null;
  /** CPU time of all the process's threads, in nanoseconds (from each thread's schedstat). */
  cpuNs: number | null;
}

const statusField = (status: string, name: string) => {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status);
  return match ? Number(match[1]) : null;
};

// Threads that end between the listing and the read are simply not counted.
const threadCpuNs = (pid: number, thread: string) => {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
};

/**
 * Reads {@link ProcStats} of process `pid`.
 *
 * @example
 * ```ts
 * readProcStats(server.pid).rssKiB;
 * ```
 */
export function readProcStats(pid: number): ProcStats {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const cpuNs = readdirSync(`/proc/${pid}/task`).reduce((sum, thread) => sum + threadCpuNs(pid, thread), 0);
    return { rssKiB: statusField(status, 'VmRSS'), peakRssKiB: statusField(status, 'VmHWM'), cpuNs };
  } catch {
    return { rssKiB: null, peakRssKiB: null, cpuNs: null };
  }
}
