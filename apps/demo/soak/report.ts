import type { SoakReport } from './run.js';

/**
 * The soak's targets: no request without a response, no 5xx, no status the mix does not allow,
 * and the server's RSS (after a garbage collection) growing by less than 10% over the run.
 *
 * @example
 * ```ts
 * SOAK_TARGETS.maxRssGrowth; // 0.1
 * ```
 */
export const SOAK_TARGETS = Object.freeze({ errors: 0, serverErrors: 0, unexpected: 0, maxRssGrowth: 0.1 });

/**
 * The targets a report misses, as sentences (none: it passed). `checkMemory: false` leaves RSS
 * out, for runs too short for it to mean anything.
 *
 * @example
 * ```ts
 * const missed = missedTargets(report);
 * if (missed.length > 0) process.exitCode = 1;
 * ```
 */
export function missedTargets(report: SoakReport, { checkMemory = true }: { checkMemory?: boolean } = {}): string[] {
  const { run, memory } = report;
  const missed: string[] = [];
  if (run.errors > SOAK_TARGETS.errors) missed.push(`${run.errors} requests got no response`);
  if (run.serverErrors > SOAK_TARGETS.serverErrors) missed.push(`${run.serverErrors} responses were 5xx`);
  if (run.unexpected > SOAK_TARGETS.unexpected) missed.push(`${run.unexpected} responses had a status the mix does not allow`);
  if (checkMemory && memory.rssGrowth >= SOAK_TARGETS.maxRssGrowth) {
    missed.push(`RSS grew by ${percent(memory.rssGrowth)} (target: under ${percent(SOAK_TARGETS.maxRssGrowth)})`);
  }
  return missed;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

/**
 * The report as the lines `npm run soak` prints: totals, then each request's statuses.
 *
 * @example
 * ```ts
 * for (const line of formatSoakReport(report)) console.log(line);
 * ```
 */
export function formatSoakReport(report: SoakReport): string[] {
  const { options, warmup, run, memory } = report;
  const lines = [
    `soak: ${options.durationSeconds} s after a ${options.warmupSeconds} s warm-up, ${options.connections} connections + ${options.loginConcurrency} login loops, 127.0.0.1`,
    `requests     ${run.requests} (warm-up: ${warmup.requests}); load ${Math.round(report.requestsPerSecond)} req/s, latency p50 ${report.latencyMs.p50} ms, p99 ${report.latencyMs.p99} ms, max ${report.latencyMs.max} ms`,
    `errors       ${run.errors} (warm-up: ${warmup.errors})`,
    `5xx          ${run.serverErrors} (warm-up: ${warmup.serverErrors})`,
    `unexpected   ${run.unexpected} (warm-up: ${warmup.unexpected})`,
    `429          ${run.throttled} (warm-up: ${warmup.throttled}), all from the login throttle`,
    `RSS          ${mib(memory.before.rss)} → ${mib(memory.after.rss)} (${memory.rssGrowth >= 0 ? '+' : ''}${percent(memory.rssGrowth)})${memory.after.collected ? ', each after a full GC' : ', without GC'}`,
    `heap used    ${mib(memory.before.heapUsed)} → ${mib(memory.after.heapUsed)}`,
    'by request (status: count):',
    ...Object.entries(run.byRequest).map(
      ([name, statuses]) => `  ${name.padEnd(52)} ${Object.entries(statuses).map(([status, count]) => `${status}: ${count}`).join(', ')}`,
    ),
  ];
  if (run.errorMessages.length > 0) lines.push('first problems:', ...run.errorMessages.map((message) => `  ${message}`));
  return lines;
}
