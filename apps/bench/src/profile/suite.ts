import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Face } from '../http/faces.js';
import type { LoadGenerator } from '../http/load/load-generator.js';
import { nodeServerSpec } from '../http/node-server-spec.js';
import { startServer, type RunningServer } from '../http/server-process.js';
import { httpTarget, ROUTE_LABELS, SERVER_LABELS, type RouteId } from '../http/targets.js';
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

/** The in-process call profiled: the bearer reader with two chained scopes, through `createCaller`. */
const IN_PROCESS = { id: 'in-process:bearer-two-scopes', label: 'in-process: bearer + 2 chained scopes (createCaller)' };

/**
 * The routes profiled: each face's protected route, and the REST token endpoint.
 *
 * @example
 * ```ts
 * PROFILED.map(([face, route]) => httpTarget(face, route));
 * ```
 */
export const PROFILED: readonly (readonly [Face, RouteId])[] = [
  ['trpc-standalone', 'items'],
  ['trpc-fetch', 'items'],
  ['rest', 'items'],
  ['rest', 'token'],
];

/**
 * Profiles the in-process protected call, then serves each profiled route from its own server, warms it up, profiles it (V8's sampling
 * profiler, as `node --cpu-prof` runs it, started after warm-up so that start-up is left out)
 * while loading it for `seconds`, and sums the profile's self time by owner. Profiles are kept in
 * `keepIn` (open them in Chrome DevTools) or deleted when it is `null`.
 *
 * @example
 * ```ts
 * const reports = await runProfiles({ seconds: 4, connections: 16, generator, progress, keepIn: null });
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
  {
    opts.progress.start(`profile: ${IN_PROCESS.label}`);
    const dir = opts.keepIn ?? mkdtempSync(join(tmpdir(), 'bench-profile-'));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'in-process-bearer-two-scopes.cpuprofile');
    try {
      const caller = callerWith({ authorization: HTTP_AUTHORIZATION });
      await timeCalls(() => caller.bearerTwoScopes(), opts.warmupSeconds * 1000);
      await startProfiler();
      const { calls } = await timeCalls(() => caller.bearerTwoScopes(), opts.seconds * 1000);
      await stopProfiler(file);
      reports.push({ ...IN_PROCESS, requests: calls, ...profileShares(file), ...(opts.keepIn === null ? {} : { file }) });
    } finally {
      if (opts.keepIn === null) rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const [face, route] of PROFILED) {
    const target = httpTarget(face, route);
    const label = `${SERVER_LABELS[face]} ${ROUTE_LABELS[route]}`;
    opts.progress.start(`profile: ${label}`);
    const dir = opts.keepIn ?? mkdtempSync(join(tmpdir(), 'bench-profile-'));
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${face}-${route}.cpuprofile`);
    rmSync(file, { force: true });
    const load = (server: RunningServer, seconds: number) =>
      opts.generator.run({
        url: `${server.origin}${target.path}`,
        method: target.method,
        headers: target.headers,
        ...(target.body === undefined ? {} : { body: target.body }),
        seconds,
        connections: opts.connections,
      });
    let server: RunningServer | undefined;
    try {
      server = await startServer(nodeServerSpec(face));
      opts.progress.step('warm-up');
      await load(server, opts.warmupSeconds);
      opts.progress.step('profiling');
      if ((await server.ask('profile-start'))?.profiling !== true) throw new Error('the server did not start its profiler');
      const result = await load(server, opts.seconds);
      const stopped = await server.ask(`profile-stop ${file}`);
      if (stopped?.profile !== file) throw new Error(`the server wrote no profile: ${JSON.stringify(stopped)}`);
      if (result.non2xx > 0) throw new Error(`${result.non2xx} of ${result.requests} answers were not 2xx`);
      reports.push({
        id: target.id,
        label,
        requests: result.requests,
        ...profileShares(file),
        ...(opts.keepIn === null ? {} : { file }),
      });
    } catch (error) {
      reports.push({ id: target.id, label, skipped: (error as Error).message });
    } finally {
      await server?.stop();
      if (opts.keepIn === null) rmSync(dir, { recursive: true, force: true });
    }
  }
  return reports;
}
