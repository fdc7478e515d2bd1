import { readFileSync } from 'node:fs';

/**
 * Where a process spent its busy CPU time, by owner: our packages, each npm package, Node's own
 * JavaScript, native code (syscalls, the HTTP parser) and the garbage collector.
 *
 * @example
 * ```ts
 * const shares: ProfileShares = {
 *   busyMs: 5200,
 *   shares: { '@trpc-oauth2/core': 0.004, '@trpc/server': 0.21 },
 *   byCaller: { '@trpc-oauth2/core': 0.005, '@trpc/server': 0.5 },
 *   trpcSpreadHelpers: 0.12,
 * };
 * ```
 */
export interface ProfileShares {
  /** Sampled time that was not idle. */
  busyMs: number;
  /** Owner → share of the busy time (0–1), by the code that ran (self time). */
  shares: Record<string, number>;
  /**
   * The same, with the time of Node's own JavaScript and native code counted for the nearest
   * package up the stack that called it (a `Request` built by tRPC's adapter counts for
   * @trpc/server); what no package called (the HTTP parser, the event loop) stays Node's.
   */
  byCaller: Record<string, number>;
  /**
   * The share of @trpc/server's compiled object-spread helpers (`_objectSpread2` and the helpers
   * it calls): tRPC copies the call options and the context with them at every `.use()` link.
   */
  trpcSpreadHelpers: number;
}

const SPREAD_HELPERS = new Set(['_objectSpread2', '_defineProperty', 'ownKeys', 'toPropertyKey', 'toPrimitive', '_typeof']);

/**
 * The owners the table shows as columns, in order; everything else is summed into `other`.
 *
 * @example
 * ```ts
 * OWNERS.map((owner) => shares[owner]);
 * ```
 */
export const OWNERS = [
  '@trpc-oauth2/core',
  '@trpc-oauth2/openapi',
  '@trpc/server',
  'trpc-to-openapi',
  'zod',
  '@hono/node-server',
  'app',
  'node (JS)',
  'native',
  'GC',
  'other',
] as const;

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

const OUR_PACKAGES: Readonly<Record<string, string>> = { core: '@trpc-oauth2/core', openapi: '@trpc-oauth2/openapi' };

/** The owner of one profile node: by its script's URL, else by the kind of native frame. */
function ownerOf(url: string, functionName: string): string | null {
  if (functionName === '(idle)') return null;
  if (functionName === '(garbage collector)') return 'GC';
  const ours = /\/packages\/([^/]+)\/(?:dist|src)\//.exec(url);
  if (ours) return OUR_PACKAGES[ours[1]!] ?? 'other';
  // The bench's own router: resolvers and output schemas, the application's share.
  if (/\/apps\/bench\//.test(url)) return 'app';
  const npm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (npm) return (OWNERS as readonly string[]).includes(npm[1]!) ? npm[1]! : 'other';
  if (url.startsWith('node:')) return 'node (JS)';
  return url === '' ? 'native' : 'other';
}

/**
 * Reads a `.cpuprofile` (as `node --cpu-prof` writes it) and sums each node's self time by owner.
 *
 * @example
 * ```ts
 * profileShares('/tmp/profiles/CPU.20260101.cpuprofile').shares['@trpc-oauth2/core'];
 * ```
 */
export function profileShares(file: string): ProfileShares {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const owners = new Map(profile.nodes.map((node) => [node.id, ownerOf(node.callFrame.url, node.callFrame.functionName)]));
  const isPackage = (owner: string | null | undefined) => owner != null && owner !== 'node (JS)' && owner !== 'native' && owner !== 'GC';
  const caller = (id: number): string | null => {
    for (let at: number | undefined = parent.get(id); at !== undefined; at = parent.get(at)) {
      if (isPackage(owners.get(at))) return owners.get(at)!;
    }
    return null;
  };
  const self = new Map<string, number>();
  const byCaller = new Map<string, number>();
  let busy = 0;
  let spread = 0;
  for (const [id, time] of selfUs) {
    const owner = owners.get(id);
    if (owner == null || time === 0 || !nodes.has(id)) continue;
    busy += time;
    self.set(owner, (self.get(owner) ?? 0) + time);
    if (owner === '@trpc/server' && SPREAD_HELPERS.has(nodes.get(id)!.callFrame.functionName)) spread += time;
    const counted = owner === 'node (JS)' || owner === 'native' ? (caller(id) ?? owner) : owner;
    byCaller.set(counted, (byCaller.get(counted) ?? 0) + time);
  }
  const shares = (times: Map<string, number>) =>
    Object.fromEntries(OWNERS.map((owner) => [owner, busy === 0 ? 0 : (times.get(owner) ?? 0) / busy]));
  return {
    busyMs: Math.round(busy / 1000),
    shares: shares(self),
    byCaller: shares(byCaller),
    trpcSpreadHelpers: busy === 0 ? 0 : spread / busy,
  };
}
