/**
 * How long one call takes, measured by calling it back to back for a time budget.
 *
 * @example
 * ```ts
 * const timing: CallTiming = { cpuNsPerCall: 950.2, calls: 210_432 };
 * ```
 */
export interface CallTiming {
  /**
   * CPU nanoseconds per call (user + system, the whole process). CPU time, not wall-clock time:
   * on a machine other work shares, time spent waiting for a core is not the code's.
   */
  cpuNsPerCall: number;
  calls: number;
}

// Calls between two clock reads: enough that reading the clock costs nothing measurable.
const BATCH = 64;

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/**
 * Calls `call` (awaiting each call) until `budgetMs` of wall-clock time has passed, then
 * returns the CPU time per call.
 *
 * @example
 * ```ts
 * const { cpuNsPerCall } = await timeCalls(() => caller.bare(), 200);
 * ```
 */
export async function timeCalls(call: () => unknown, budgetMs: number): Promise<CallTiming> {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(budgetMs * 1e6));
  const cpuStart = cpuMicros();
  let calls = 0;
  do {
    for (let i = 0; i < BATCH; i++) await call();
    calls += BATCH;
  } while (process.hrtime.bigint() < deadline);
  return { cpuNsPerCall: ((cpuMicros() - cpuStart) * 1000) / calls, calls };
}
