import type { SoakReport } from './run.js';

/**
 * The soak's targets: no request without a response, no 5xx, no status the mix does not allow,
 * every race at `/oidc` with exactly one winner, and the server's RSS (after a garbage
 * collection) growing by less than 10% over the run.
 *
 * @example
 * ```ts
 * SOAK_TARGETS.maxRssGrowth; // 0.1
 * ```
 */
export const SOAK_TARGETS = Object.freeze({ errors: 0, serverErrors: 0, unexpected: 0, maxRssGrowth: 0.1 });

/**
 * The targets a report misses, as sentences (none: it passed): the counts of all servers
 * together, each server's own counts (when there are several), and each server's RSS growth.
 * `checkMemory: false` leaves RSS out, for runs too short for it to mean anything.
 *
 * @example
 * ```ts
 * const missed = missedTargets(report);
 * if (missed.length > 0) process.exitCode = 1;
 * ```
 */
export function missedTargets(report: SoakReport, { checkMemory = true }: { checkMemory?: boolean } = {}): string[] {
  const missed: string[] = [];
  const several = report.instances.length > 1;
  const counted = [{ where: several ? 'in all, ' : '', run: report.run }, ...(several ? report.instances.map(({ run }, i) => ({ where: `on ${serverName(i)}, `, run })) : [])];
  for (const { where, run } of counted) {
    if (run.errors > SOAK_TARGETS.errors) missed.push(`${where}${run.errors} requests got no response`);
    if (run.serverErrors > SOAK_TARGETS.serverErrors) missed.push(`${where}${run.serverErrors} responses were 5xx`);
    if (run.unexpected > SOAK_TARGETS.unexpected) missed.push(`${where}${run.unexpected} responses had a status the mix does not allow`);
  }
  if (report.races.lost > 0) missed.push(`${report.races.lost} races at /oidc had no winner`);
  if (report.races.doubled > 0) missed.push(`${report.races.doubled} races at /oidc had more than one winner`);
  if (report.options.racers !== 0 && report.races.codes === 0) missed.push('no race at /oidc ran');
  if (checkMemory) {
    report.instances.forEach(({ memory }, i) => {
      if (memory.rssGrowth >= SOAK_TARGETS.maxRssGrowth) {
        missed.push(`${several ? `${serverName(i)}: ` : ''}RSS grew by ${percent(memory.rssGrowth)} (target: under ${percent(SOAK_TARGETS.maxRssGrowth)})`);
      }
    });
  }
  return missed;
}

const serverName = (index: number) => `server ${String.fromCharCode(65 + index)}`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

/**
 * The report as the lines `npm run soak` prints: totals, each server's counts and memory, then
 * each request's statuses (all servers together).
 *
 * @example
 * ```ts
 * for (const line of formatSoakReport(report)) console.log(line);
 * ```
 */
export function formatSoakReport(report: SoakReport): string[] {
  const { options, warmup, run, instances } = report;
  const counts = (prefix: string, now: typeof run, before: typeof warmup) => [
    `${prefix}responses    ${now.requests} (warm-up: ${before.requests})`,
    `${prefix}errors       ${now.errors} (warm-up: ${before.errors})`,
    `${prefix}5xx          ${now.serverErrors} (warm-up: ${before.serverErrors})`,
    `${prefix}unexpected   ${now.unexpected} (warm-up: ${before.unexpected})`,
    `${prefix}429          ${now.throttled} (warm-up: ${before.throttled}), all from the login throttle`,
  ];
  const lines = [
    `soak: ${options.durationSeconds} s after a ${options.warmupSeconds} s warm-up, ${options.connections} connections + ${options.loginConcurrency} login loops, ${instances.length} server(s), 127.0.0.1`,
    `load         ${Math.round(report.requestsPerSecond)} req/s in all`,
    ...counts('', run, warmup),
    `races /oidc  ${report.races.codes} codes and ${report.races.refreshes} refresh tokens, each spent by ${options.racers ?? 20} requests at once: ${report.races.lost} lost, ${report.races.doubled} doubled`,
  ];
  instances.forEach((instance, i) => {
    const { memory } = instance;
    lines.push(
      `${serverName(i)} (${instance.url}): load ${Math.round(instance.requestsPerSecond)} req/s, latency p50 ${instance.latencyMs.p50} ms, p99 ${instance.latencyMs.p99} ms, max ${instance.latencyMs.max} ms`,
      ...counts('  ', instance.run, instance.warmup),
      `  RSS          ${mib(memory.before.rss)} → ${mib(memory.after.rss)} (${memory.rssGrowth >= 0 ? '+' : ''}${percent(memory.rssGrowth)})${memory.after.collected ? ', each after a full GC' : ', without GC'}`,
      `  heap used    ${mib(memory.before.heapUsed)} → ${mib(memory.after.heapUsed)}`,
    );
  });
  lines.push(
    'by request (status: count):',
    ...Object.entries(run.byRequest).map(
      ([name, statuses]) => `  ${name.padEnd(60)} ${Object.entries(statuses).map(([status, count]) => `${status}: ${count}`).join(', ')}`,
    ),
  );
  if (run.errorMessages.length > 0) lines.push('first problems:', ...run.errorMessages.map((message) => `  ${message}`));
  return lines;
}
