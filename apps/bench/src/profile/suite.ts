import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Face } from '../http/faces.js';
import type { LoadGenerator } from '../http/load/load-generator.js';
import { nodeServerSpec } from '../http/node-server-spec.js';
import { startServer, type RunningServer } from '../http/server-process.js';
import { httpTarget, targetLabel, type RouteId } from '../http/targets.js';
import type { Progress } from '../progress.js';
import { HTTP_AUTHORIZATION } from '../bearer-header.js';
import { callerWith } from '../in-process/procedures.js';
import { timeCalls } from '../in-process/time-calls.js';
import { profileShares, type ProfileShares } from './cpu-profile-shares.js';
import { startProfiler, stopProfiler } from './inspector-profiler.js';

/**
 * One profiled route: who owns its server's CPU time under load.
 *
 * @example
 * ```ts
 * const report: ProfileReport = { id: 'rest:items', label: 'REST … bearer + 2 scopes', requests: 20_000, busyMs: 5200, shares: {} };
 * ```
 */
export interface ProfileReport extends Partial<ProfileShares> {
  id: string;
  label: string;
  requests?: number;
  /** Where the profile was kept, when it was. */
  file?: string;
  skipped?: string;
}

/**
 * The in-process calls profiled, through `createCaller`: the protected procedure in its
 * two forms (the reader and two chained scopes, three steps; `withScopes`, one step).
 *
 * @example
 * ```ts
 * IN_PROCESS_PROFILED.map((entry) => entry.id); // ['in-process:bearer-two-scopes', 'in-process:bearer-with-scopes']
 * ```
 */
export const IN_PROCESS_PROFILED = [
  { id: 'in-process:bearer-two-scopes', label: 'in-process: bearer + 2 chained scopes, 3 steps (createCaller)', procedure: 'bearerTwoScopes' },
  { id: 'in-process:bearer-with-scopes', label: 'in-process: bearer.withScopes, 1 step (createCaller)', procedure: 'bearerWithScopes' },
] as const;

/**
 * The routes profiled: each face's protected route in both forms, and the REST token endpoint.
 *
 * @example
 * ```ts
 * PROFILED.map(([face, route]) => httpTarget(face, route));
 * ```
 */
export const PROFILED: readonly (readonly [Face, RouteId])[] = [
  ['trpc-standalone', 'items'],
  ['trpc-standalone', 'itemsOneStep'],
  ['trpc-fetch', 'items'],
  ['trpc-fetch', 'itemsOneStep'],
  ['rest', 'items'],
  ['rest', 'itemsOneStep'],
  ['rest', 'token'],
];

/**
 * Profiles the in-process protected calls, then each profiled route under load: one server per
 * face (its own process, all started up front, idle until their turn), each route warmed up,
 * then profiled (V8's sampling profiler, as `node --cpu-prof` runs it, started after the warm-up
 * so that start-up is left out) while loaded for `seconds`; each profile's self time is summed
 * by owner. Profiles are kept in `keepIn` (open them in Chrome DevTools) or deleted when it is `null`.
 *
 * @example
 * ```ts
 * const reports = await runProfiles({ seconds: 4, warmupSeconds: 1, connections: 16, generator, progress, keepIn: null });
 * ```
 */
export async function runProfiles(opts: {
  seconds: number;
  warmupSeconds: number;
  connections: number;
  generator: LoadGenerator;
  progress: Progress;
  keepIn: string | null;
}): Promise<ProfileReport[]> {
  const reports: ProfileReport[] = [];
  const dir = opts.keepIn ?? mkdtempSync(join(tmpdir(), 'bench-profile-'));
  mkdirSync(dir, { recursive: true });
  const servers = new Map<Face, Promise<RunningServer>>();
  try {
    const caller = callerWith({ authorization: HTTP_AUTHORIZATION });
    for (const { id, label, procedure } of IN_PROCESS_PROFILED) {
      opts.progress.start(`profile: ${label}`);
      const file = join(dir, `${id.replace(':', '-')}.cpuprofile`);
      const call = () => caller[procedure]();
      await timeCalls(call, opts.warmupSeconds * 1000);
      await startProfiler();
      const { calls } = await timeCalls(call, opts.seconds * 1000);
      await stopProfiler(file);
      reports.push({ id, label, requests: calls, ...profileShares(file), ...(opts.keepIn === null ? {} : { file }) });
    }
    for (const face of new Set(PROFILED.map(([face]) => face))) servers.set(face, startServer(nodeServerSpec(face)));
    // All started before any load, so that no start-up runs beside a profile; one that failed is
    // reported on each of its routes, below.
    await Promise.allSettled(servers.values());
    for (const [face, route] of PROFILED) {
      const target = httpTarget(face, route);
      const label = targetLabel(face, route);
      opts.progress.start(`profile: ${label}`);
      const file = join(dir, `${face}-${route}.cpuprofile`);
      rmSync(file, { force: true });
      try {
        const server = await servers.get(face)!;
        const load = (seconds: number) =>
          opts.generator.run({
            url: `${server.origin}${target.path}`,
            method: target.method,
            headers: target.headers,
            ...(target.body === undefined ? {} : { body: target.body }),
            seconds,
            connections: opts.connections,
          });
        opts.progress.step('warm-up');
        await load(opts.warmupSeconds);
        opts.progress.step('profiling');
        if ((await server.ask('profile-start'))?.profiling !== true) throw new Error('the server did not start its profiler');
        const result = await load(opts.seconds);
        const stopped = await server.ask(`profile-stop ${file}`);
        if (stopped?.profile !== file) throw new Error(`the server wrote no profile: ${JSON.stringify(stopped)}`);
        if (result.non2xx > 0) throw new Error(`${result.non2xx} of ${result.requests} answers were not 2xx`);
        reports.push({ id: target.id, label, requests: result.requests, ...profileShares(file), ...(opts.keepIn === null ? {} : { file }) });
      } catch (error) {
        reports.push({ id: target.id, label, skipped: (error as Error).message });
      }
    }
  } finally {
    await Promise.all([...servers.values()].map((started) => started.then((server) => server.stop(), () => {})));
    if (opts.keepIn === null) rmSync(dir, { recursive: true, force: true });
  }
  return reports;
}
