import { chooseGenerator } from './http/load/choose-generator.js';
import { HTTP_PAIRS, PEER_TABLE } from './http/pairs.js';
import { openLoopSuffix, runHttp } from './http/suite.js';
import { runInProcess, selectInProcessCases } from './in-process/suite.js';
import { describeMachine } from './machine.js';
import type { BenchOptions } from './options.js';
import { prepareFastApi } from './peer/fastapi.js';
import { prepareLtsNode, type LtsNode } from './runtime/lts-node.js';
import { IN_PROCESS_PROFILED, PROFILED, runProfiles } from './profile/suite.js';
import { createProgress } from './progress.js';
import { timeSplits } from './report/breakdown.js';
import { tailRows } from './report/tails.js';
import type { BenchResults } from './report/results.js';
import { loadavg } from 'node:os';

const round2 = (value: number) => Math.round(value * 100) / 100;

/**
 * Runs the benchmarks `options` ask for and returns their results; the progress line goes to
 * `stream` (`null`: silent). Servers it starts are stopped before it returns.
 *
 * @example
 * ```ts
 * const results = await runBench(FULL, process.stderr);
 * ```
 */
export async function runBench(options: BenchOptions, stream: NodeJS.WriteStream | null): Promise<BenchResults> {
  const started = Date.now();
  const machine = describeMachine();
  const notes: string[] = [];
  const inProcessCases = options.sections.includes('in-process') ? selectInProcessCases(options.only) : [];
  const httpPairs = options.sections.includes('http')
    ? HTTP_PAIRS.filter((pair) => options.only === undefined || options.only.includes(pair.id))
    : [];
  const profiling = options.sections.includes('profile') && options.only === undefined;
  const progress = createProgress(inProcessCases.length + httpPairs.length + (profiling ? IN_PROCESS_PROFILED.length + PROFILED.length : 0), stream);
  const note = (message: string) => {
    notes.push(message);
    progress.note(message);
  };

  let inProcess: BenchResults['inProcess'] = null;
  if (inProcessCases.length > 0) {
    const before = process.memoryUsage().rss;
    const pairs = await runInProcess(options.inProcess, progress, inProcessCases);
    inProcess = { budget: options.inProcess, pairs, rssKiB: { before: Math.round(before / 1024), after: Math.round(process.memoryUsage().rss / 1024) } };
  }

  let http: BenchResults['http'] = null;
  const generator = httpPairs.length > 0 || profiling ? await chooseGenerator({ prefer: options.generator, install: options.install, note }) : null;
  if (httpPairs.length > 0 && generator !== null) {
    const peers = await prepareFastApi({ python: options.python, install: options.install, note });
    for (const [stack, why] of Object.entries(peers.skipped)) note(`FastAPI ${stack} stack skipped: ${why}`);
    const needsLts = httpPairs.some((pair) => pair.a[0] === 'rest-lts' || pair.b[0] === 'rest-lts');
    const lts: LtsNode = needsLts
      ? await prepareLtsNode({ ...(options.ltsNode === undefined ? {} : { path: options.ltsNode }), install: options.install, note })
      : { skipped: 'no pair of this run needs it' };
    if (needsLts && lts.skipped !== undefined) note(`LTS Node skipped: ${lts.skipped}`);
    const section = await runHttp({ pairs: httpPairs, budget: options.http, generator, peers, lts, progress });
    http = {
      budget: options.http,
      generator: { name: generator.name, version: generator.version, latencyResolutionUs: generator.latencyResolutionUs },
      peer: { versions: peers.versions, skipped: peers.skipped },
      ...(lts.version === undefined ? {} : { ltsNode: lts.version }),
      pairs: section.pairs,
      servers: section.servers,
      timeSplits: timeSplits(['trpc-standalone', 'trpc-fetch', 'rest'], section.samples, inProcess?.pairs ?? []),
      tails: tailRows(section.samples, [
        ['rest', 'itemsJwt'],
        ['rest', 'itemsJwtCached'],
        ['rest-lts', 'itemsJwt'],
        ['rest-lts', 'itemsJwtCached'],
        ['fastapi-fast', 'itemsJwt'],
        ...PEER_TABLE.filter((server) => server !== 'rest' && server !== 'fastapi-fast').map((server) => [server, 'itemsJwt'] as const),
        // The same routes at the same requests per second: each open-loop pair's two sides.
        ...httpPairs.flatMap((pair) =>
          pair.openLoop === undefined
            ? []
            : [pair.b, pair.a].map(
                ([server, route]) =>
                  [
                    server,
                    route,
                    openLoopSuffix(pair.id),
                    `same rate for both, ${Math.round(pair.openLoop!.share * 100)}% of the slower one's${pair.b[0] === 'rest-lts' ? ', ours on the LTS Node' : ''}`,
                  ] as const,
              ),
        ),
      ]),
    };
  }
  let profiles: BenchResults['profiles'] = null;
  if (profiling && generator !== null) {
    const reports = await runProfiles({ ...options.profile, generator, progress, keepIn: options.profileDir });
    profiles = { budget: options.profile, generator: generator.name, reports };
  }
  progress.done();
  return {
    format: 'trpc-oauth2-bench/1',
    mode: options.mode,
    startedAt: new Date(started).toISOString(),
    seconds: round2((Date.now() - started) / 1000),
    machine,
    loadAverageAtEnd: loadavg().map(round2),
    inProcess,
    http,
    profiles,
    notes,
  };
}
