import { cpus, loadavg, release, totalmem } from 'node:os';

/**
 * The machine a run happened on.
 *
 * @example
 * ```ts
 * const machine: Machine = describeMachine();
 * ```
 */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  os: string;
  node: string;
  /** 1-, 5- and 15-minute load averages when the run started: other work on the machine. */
  loadAverage: number[];
}

/**
 * Describes this machine.
 *
 * @example
 * ```ts
 * describeMachine().cores; // 2
 * ```
 */
export function describeMachine(): Machine {
  const cores = cpus();
  return {
    cpu: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${process.platform} ${release()}`,
    node: process.version,
    loadAverage: loadavg().map((load) => Math.round(load * 100) / 100),
  };
}
