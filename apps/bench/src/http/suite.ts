import { alternate, type Sample } from '../alternate.js';
import type { FastApiPeers } from '../peer/fastapi.js';
import type { Progress } from '../progress.js';
import type { PairReport } from '../report/pair-report.js';
import { median } from '../stats.js';
import { verdict } from '../targets.js';
import type { Face } from './faces.js';
import type { LoadGenerator, LoadRequest, LoadResult } from './load/load-generator.js';
import { runOpenLoopProcess } from './load/open-loop-generator.js';
import type { HttpPair } from './pairs.js';
import type { ProcStats } from './proc-stats.js';
import { nodeServerSpec } from './node-server-spec.js';
import type { LtsNode } from '../runtime/lts-node.js';
import type { TailReport } from './tail-monitor.js';
import { startServer, type RunningServer } from './server-process.js';
import { httpTarget, SERVER_LABELS, targetLabel, type HttpTarget, type ServerId } from './targets.js';

/**
 * How long and how hard to load each side of each HTTP pair.
 *
 * @example
 * ```ts
 * const budget: HttpBudget = { rounds: 5, seconds: 2, warmupSeconds: 1, connections: 16 };
 * ```
 */
export interface HttpBudget {
  rounds: number;
  /** Length of one run (one side, one round). */
  seconds: number;
  /** One run per target before the first round, so that every server is warm; 0 skips it. */
  warmupSeconds: number;
  connections: number;
}

/**
 * One server's memory over the HTTP section, and where it was not run, why.
 *
 * @example
 * ```ts
 * const report: ServerReport = { server: 'rest', label: 'REST (trpc-to-openapi)', before: stats, after: stats };
 * ```
 */
export interface ServerReport {
  server: ServerId;
  label: string;
  /** After start-up and the answer checks, before any load. */
  before?: ProcStats;
  /** After the last run. */
  after?: ProcStats;
  /** Our Node servers: the heap in use after a full collection, before and after, in KiB. */
  heapAfterGcKiB?: { before: number | null; after: number | null };
  skipped?: string;
}

/**
 * What the HTTP section produced.
 *
 * @example
 * ```ts
 * const { pairs, servers, samples } = await runHttp(options);
 * ```
 */
export interface HttpSection {
  pairs: PairReport[];
  servers: ServerReport[];
  /** Every run of every target, by target id: the breakdown reads medians from these. */
  samples: Record<string, Sample[]>;
}

/**
 * `capacity` is the requests per second one fully used core would serve (10⁶ / CPU µs per
 * request): unlike the wall-clock req/s, it does not drop when other work on a shared machine
 * takes the core away, so it is what the targets are checked on. Where /proc is missing it falls
 * back to the wall-clock req/s.
 */
const METRICS = ['capacity', 'rps', 'p99Us', 'cpuUsPerRequest'];

/**
 * Starts every server the pairs need (each in its own process), checks each target's answer,
 * warms each target up, then loads the two sides of each pair alternately, round by round.
 * Servers are stopped at the end, whatever happens.
 *
 * @example
 * ```ts
 * const section = await runHttp({ pairs: HTTP_PAIRS, budget, generator, peers, progress });
 * ```
 */
export async function runHttp(opts: {
  pairs: readonly HttpPair[];
  budget: HttpBudget;
  generator: LoadGenerator;
  peers: FastApiPeers;
  /** The Node the `rest-lts` server runs on. */
  lts: LtsNode;
  progress: Progress;
}): Promise<HttpSection> {
  const { budget, generator, progress } = opts;
  const needed = [...new Set(opts.pairs.flatMap((pair) => [pair.a[0], pair.b[0]]))];
  const servers = new Map<ServerId, RunningServer>();
  const reports = new Map<ServerId, ServerReport>();
  const samples: Record<string, Sample[]> = {};
  try {
    // Two servers start at a time: ten Node processes loading their frameworks at once on a busy
    // 2-core machine can each take longer than the start-up timeout.
    const started = await settledInTwos(needed, async (id) => {
      const peer = id === 'fastapi-default' ? 'default' : id === 'fastapi-fast' ? 'fast' : null;
      if (id === 'rest-lts' && opts.lts.command === undefined) throw new Error(opts.lts.skipped);
      const spec =
        id === 'rest-lts' ? { ...nodeServerSpec('rest'), name: id, command: opts.lts.command! } : peer === null ? nodeServerSpec(id as Face) : opts.peers.servers[peer];
      if (spec === undefined) throw new Error(opts.peers.skipped[peer!] ?? 'not available');
      servers.set(id, await startServer(spec));
    });
    needed.forEach((id, i) => {
      const outcome = started[i]!;
      reports.set(id, {
        server: id,
        label: SERVER_LABELS[id],
        ...(outcome.status === 'rejected' ? { skipped: String((outcome.reason as Error).message ?? outcome.reason) } : {}),
      });
    });

    const targetProblems = new Map<string, string | null>();
    const warmed = new Set<string>();
    const prepare = async (target: HttpTarget): Promise<string | null> => {
      const server = servers.get(target.server);
      if (server === undefined) return `${SERVER_LABELS[target.server]} did not start: ${reports.get(target.server)?.skipped}`;
      if (!targetProblems.has(target.id)) {
        targetProblems.set(target.id, await checkTarget(server, target));
      }
      const problem = targetProblems.get(target.id)!;
      if (problem === null && budget.warmupSeconds > 0 && !warmed.has(target.id)) {
        warmed.add(target.id);
        progress.step(`warm-up ${target.id}`);
        await generator.run(loadRequest(server, target, budget.warmupSeconds, budget.connections));
      }
      return problem === null ? null : `${SERVER_LABELS[target.server]} ${target.path}: ${problem}`;
    };
    const heapBefore = new Map<ServerId, number | null>();
    for (const [id, server] of servers) {
      reports.get(id)!.before = server.stats();
      heapBefore.set(id, await server.heapAfterGc());
    }

    const pairs: PairReport[] = [];
    for (const pair of opts.pairs) {
      const [a, b] = [httpTarget(...pair.a), httpTarget(...pair.b)];
      const labels = { a: targetLabel(...pair.a), b: targetLabel(...pair.b) };
      progress.start(`http: ${labels.a} vs ${labels.b}`);
      const metrics = pair.openLoop === undefined ? METRICS : [...METRICS, 'p50Us'];
      const common = {
        section: 'http' as const,
        id: pair.id,
        group: pair.group,
        ...labels,
        metrics,
        ...(pair.target === undefined ? {} : { target: pair.target }),
        ...(pair.note === undefined ? {} : { note: pair.note }),
      };
      const problems = [await prepare(a), await prepare(b)].filter((p): p is string => p !== null);
      if (problems.length > 0) {
        pairs.push({ ...common, ratios: {}, aMedian: {}, bMedian: {}, rounds: [], verdict: 'none', skipped: problems.join('; ') });
        continue;
      }
      const warnings = new Set<string>();
      let load: Load = (request) => generator.run(request);
      let sampleKey = (target: HttpTarget): string => target.id;
      let runBudget = budget;
      if (pair.openLoop !== undefined) {
        const rate = await openLoopRate(pair.openLoop.share, [a, b], samples, (target) => generator.run(loadRequest(servers.get(target.server)!, target, budget.seconds, budget.connections)));
        load = (request) => runOpenLoopProcess({ ...request, rate });
        runBudget = { ...budget, seconds: budget.seconds * OPEN_LOOP_LENGTH };
        sampleKey = (target) => `${target.id}${openLoopSuffix(pair.id)}`;
        common.a = `${labels.a}, ${rate} req/s`;
        common.b = `${labels.b}, ${rate} req/s`;
      }
      const result = await alternate({
        rounds: budget.rounds,
        metrics,
        progress,
        measure: async (side) => {
          const target = side === 'A' ? a : b;
          const sample = await measure(servers.get(target.server)!, target, runBudget, load);
          if (sample.non2xx > 0 || sample.errors > 0) warnings.add(`${target.id}: ${sample.non2xx} non-2xx answers, ${sample.errors} socket errors in one run`);
          (samples[sampleKey(target)] ??= []).push(sample);
          return sample;
        },
      });
      const medians = Object.fromEntries(METRICS.map((metric) => [metric, result.ratios[metric]!.median]));
      pairs.push({
        ...common,
        ratios: result.ratios,
        aMedian: result.a,
        bMedian: result.b,
        rounds: result.rounds,
        verdict: warnings.size > 0 && pair.target !== undefined ? 'missed' : verdict(pair.target, medians),
        ...(warnings.size > 0 ? { warnings: [...warnings] } : {}),
      });
    }
    for (const [id, server] of servers) {
      const report = reports.get(id)!;
      report.after = server.stats();
      const heapAfter = await server.heapAfterGc();
      if (heapBefore.get(id) != null || heapAfter !== null) report.heapAfterGcKiB = { before: heapBefore.get(id) ?? null, after: heapAfter };
    }
    return { pairs, servers: [...reports.values()], samples };
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
}

/**
 * How many times longer an open-loop run is than a closed-loop one. At half load a 2 s run holds
 * about 4,000 requests, so its p99 is the 40th slowest: one stall of the machine moves it. Three
 * times as long, the p99 of each round reads the server rather than the moment.
 *
 * @example
 * ```ts
 * const seconds = budget.seconds * OPEN_LOOP_LENGTH; // 6 s for the full run's 2 s
 * ```
 */
export const OPEN_LOOP_LENGTH = 3;

/** One load run: wrk's or autocannon's closed loop, or an open loop at a fixed rate. */
type Load = (request: LoadRequest) => Promise<LoadResult>;

/**
 * The key suffix of an open-loop pair's samples: its id, so that they are never read as
 * closed-loop runs, nor as the runs of another pair at another rate (`rest:itemsJwt@tail-50-…`).
 *
 * @example
 * ```ts
 * openLoopSuffix('tail-50-fastapi-fast-rest-itemsJwt'); // '@tail-50-fastapi-fast-rest-itemsJwt'
 * ```
 */
export const openLoopSuffix = (pairId: string): string => `@${pairId}`;

/**
 * The rate both sides of an open-loop pair get: `share` of the slower side's closed-loop
 * requests per second, the median of its runs so far in this run (one run of each, when a side
 * has none), rounded down to a multiple of 10.
 */
async function openLoopRate(
  share: number,
  targets: readonly HttpTarget[],
  samples: Readonly<Record<string, Sample[]>>,
  closedLoop: (target: HttpTarget) => Promise<LoadResult>,
): Promise<number> {
  const rates: number[] = [];
  for (const target of targets) {
    const runs = samples[target.id]?.map((run) => run.rps!).filter(Number.isFinite) ?? [];
    rates.push(runs.length > 0 ? median(runs) : (await closedLoop(target)).rps);
  }
  return Math.max(10, Math.floor((share * Math.min(...rates)) / 10) * 10);
}

/** `Promise.allSettled` of `work` over `items`, at most two at a time, in the items' order. */
async function settledInTwos<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<PromiseSettledResult<void>[]> {
  const outcomes: PromiseSettledResult<void>[] = [];
  for (let i = 0; i < items.length; i += 2) outcomes.push(...(await Promise.allSettled(items.slice(i, i + 2).map(work))));
  return outcomes;
}

const loadRequest = (server: RunningServer, target: HttpTarget, seconds: number, connections: number) => ({
  url: `${server.origin}${target.path}`,
  method: target.method,
  headers: target.headers,
  ...(target.body === undefined ? {} : { body: target.body }),
  seconds,
  connections,
});

/** One request, checked against what the target must answer; `null` when it is right. */
async function checkTarget(server: RunningServer, target: HttpTarget): Promise<string | null> {
  try {
    const response = await fetch(`${server.origin}${target.path}`, {
      method: target.method,
      headers: target.headers,
      ...(target.body === undefined ? {} : { body: target.body }),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // compared as text
    }
    return target.check(response.status, body);
  } catch (error) {
    return `request failed: ${(error as Error).message}`;
  }
}

/** One load run, with the server's CPU time per request read from /proc around it. */
async function measure(server: RunningServer, target: HttpTarget, budget: HttpBudget, load: Load) {
  await server.ask('tail-start');
  const before = server.stats().cpuNs;
  const result = await load(loadRequest(server, target, budget.seconds, budget.connections));
  const after = server.stats().cpuNs;
  const tail = ((await server.ask('tail-stop'))?.tail ?? null) as TailReport | null;
  const cpuUsPerRequest = before === null || after === null || result.requests === 0 ? Number.NaN : (after - before) / 1000 / result.requests;
  // Our Node servers also say how late their event loop ran and how long the GC paused (NaN for
  // the others): where the latency tail comes from.
  const perSecond = (value: number | undefined) => (value === undefined ? Number.NaN : value / result.seconds);
  return {
    ...result,
    cpuUsPerRequest,
    capacity: Number.isFinite(cpuUsPerRequest) ? 1e6 / cpuUsPerRequest : result.rps,
    loopDelayP99Us: tail?.loopDelayP99Us ?? Number.NaN,
    loopDelayMaxUs: tail?.loopDelayMaxUs ?? Number.NaN,
    gcMsPerSecond: perSecond(tail?.gcPauseMs),
    gcMaxPauseMs: tail?.gcMaxPauseMs ?? Number.NaN,
  };
}

