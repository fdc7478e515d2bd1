import type { Target } from '../targets.js';
import type { RouteId, ServerId } from './targets.js';

/**
 * An HTTP pair: two targets loaded alternately; ratios are B over A.
 *
 * @example
 * ```ts
 * const pair: HttpPair = { id: 'cost-rest', group: 'security cost', a: ['rest', 'bare'], b: ['rest', 'items'] };
 * ```
 */
export interface HttpPair {
  id: string;
  group: string;
  a: readonly [ServerId, RouteId];
  b: readonly [ServerId, RouteId];
  target?: Target;
  note?: string;
  /**
   * Load both sides open-loop (see `load/open-loop.ts`) at the same requests per second: `share`
   * of the slower side's closed-loop throughput in this run. Without it, wrk's closed loop loads
   * each side as hard as it goes.
   */
  openLoop?: { share: number };
}

/**
 * The stacks of the peer table, in table order: ours on its three faces, then the stacks users
 * pick for the same job.
 *
 * @example
 * ```ts
 * PEER_TABLE.includes('hono'); // true
 * ```
 */
export const PEER_TABLE: readonly ServerId[] = ['rest', 'trpc-fetch', 'trpc-standalone', 'fastify', 'hono', 'express', 'fastapi-fast'];

/**
 * The loads of the open-loop pairs: each a share of the slower side's closed-loop throughput.
 *
 * @example
 * ```ts
 * OPEN_LOOP_SHARES; // [0.5, 0.8]
 * ```
 */
export const OPEN_LOOP_SHARES: readonly number[] = [0.5, 0.8];

// Checked on capacity (requests per second per core, from CPU time): see `runHttp`.
const keeps97: Target = { metric: 'capacity', atLeast: 0.97, text: '≥ 0.97×' };
const ahead: Target = { metric: 'capacity', atLeast: 1, text: '≥ 1.00× (ahead)' };

/**
 * The goal pairs of the verified route against FastAPI for one of our REST servers (`rest` on
 * this machine's Node, `rest-lts` on the LTS Node): a signature checked on every request (ours
 * through the reader's `verify`, FastAPI's tutorial with PyJWT); the configuration the README
 * recommends, verified tokens remembered by `cacheVerifier` (what a client's repeated token gets;
 * FastAPI's tutorial has no such cache and checks every time); and goal 5 at the same load: both
 * servers answer the same requests per second, open loop, each request's latency counted from
 * when it was due (a closed loop loads each server as hard as it goes, so the faster one also
 * queues more).
 */
function verifiedGoals(server: 'rest' | 'rest-lts'): HttpPair[] {
  const where = server === 'rest' ? '' : ', ours on the LTS Node';
  return [
    {
      id: `fastapi-fast-${server}-itemsJwt`,
      group: 'verified JWT vs FastAPI',
      a: ['fastapi-fast', 'itemsJwt'],
      b: [server, 'itemsJwt'],
      target: { metric: 'capacity', atLeast: 1.3, text: '≥ 1.30×' },
      note: `a signature check on every request${where}`,
    },
    {
      id: `fastapi-fast-${server}-itemsJwtCached`,
      group: 'verified JWT vs FastAPI',
      a: ['fastapi-fast', 'itemsJwt'],
      b: [server, 'itemsJwtCached'],
      target: { metric: 'capacity', atLeast: 1.8, text: '≥ 1.80×' },
      note: `cacheVerifier on, as the README recommends${where}`,
    },
    ...OPEN_LOOP_SHARES.map(
      (share): HttpPair => ({
        id: `tail-${Math.round(share * 100)}-fastapi-fast-${server}-itemsJwt`,
        group: 'tail at the same load',
        a: ['fastapi-fast', 'itemsJwt'],
        b: [server, 'itemsJwt'],
        openLoop: { share },
        target: { metric: 'p99Us', atMost: 1, text: '≤ 1.00×' },
        note: `open loop at ${Math.round(share * 100)}% of the slower side's throughput${where}`,
      }),
    ),
  ];
}

/**
 * Every HTTP pair, in table order.
 *
 * @example
 * ```ts
 * HTTP_PAIRS.filter((pair) => pair.group === 'security cost');
 * ```
 */
export const HTTP_PAIRS: readonly HttpPair[] = [
  // The protected route in its two forms on each face: three `.use()` steps, and one.
  ...(['trpc-standalone', 'trpc-fetch', 'rest'] as const).flatMap((server): HttpPair[] => [
    { id: `cost-${server}`, group: 'security cost', a: [server, 'bare'], b: [server, 'items'], target: keeps97 },
    { id: `cost-one-step-${server}`, group: 'security cost', a: [server, 'bare'], b: [server, 'itemsOneStep'], target: keeps97 },
  ]),
  ...(
    [
      ['rest', 'bare'],
      ['rest', 'items'],
      ['rest', 'itemsOneStep'],
      ['rest', 'token'],
      ['trpc-standalone', 'bare'],
      ['trpc-standalone', 'items'],
      ['trpc-standalone', 'itemsOneStep'],
      ['trpc-fetch', 'items'],
      ['trpc-fetch', 'itemsOneStep'],
    ] as const
  ).map(
    ([server, route]): HttpPair => ({
      id: `fastapi-fast-${server}-${route}`,
      group: 'vs FastAPI (fastest stack)',
      // FastAPI's protected route is the same for both of our forms.
      a: ['fastapi-fast', route === 'itemsOneStep' ? 'items' : route],
      b: [server, route],
      target: ahead,
    }),
  ),
  // The peer table: every stack's bare route against the same route verifying the same ES256 JWT
  // and requiring two scopes, each on its own framework: its capacity (A and B) and what its
  // security layer costs (B/A). It runs before the pairs against FastAPI below, so that the
  // verified routes are warm (JIT-compiled) when they are measured there.
  ...PEER_TABLE.map(
    (server): HttpPair => ({
      id: `peers-${server}`,
      group: 'peer table: bare vs verified JWT',
      a: [server, 'bare'],
      b: [server, 'itemsJwt'],
      note: 'protected over bare on its own stack',
    }),
  ),
  // The goals against FastAPI, ours on this machine's Node and on the current LTS Node (see
  // `LTS_MAJOR`).
  ...(['rest', 'rest-lts'] as const).flatMap(verifiedGoals),
  // The same server on both Nodes, route by route.
  ...(['bare', 'itemsJwt', 'itemsJwtCached'] as const).map(
    (route): HttpPair => ({ id: `runtime-rest-${route}`, group: 'the runtime', a: ['rest', route], b: ['rest-lts', route], note: 'the same server on the LTS Node' }),
  ),
  ...(['bare', 'items', 'token'] as const).map(
    (route): HttpPair => ({ id: `fastapi-default-rest-${route}`, group: 'vs FastAPI (default stack)', a: ['fastapi-default', route], b: ['rest', route] }),
  ),
  // The protected route's request and answer without any security (a control) over the bare
  // route: what the larger header and body cost every face; then the one-step route over the
  // control: the step and our code alone.
  ...(['trpc-standalone', 'trpc-fetch', 'rest'] as const).flatMap((server): HttpPair[] => [
    {
      id: `request-and-answer-${server}`,
      group: 'where the time goes',
      a: [server, 'bare'],
      b: [server, 'itemsNoSecurity'],
      note: 'the larger request and answer alone',
    },
    {
      id: `security-only-${server}`,
      group: 'where the time goes',
      a: [server, 'itemsNoSecurity'],
      b: [server, 'itemsOneStep'],
      note: 'the one step and our code alone',
    },
  ]),
  // RFC 9449: a DPoP-bound call against the same call as Bearer, the principal known at once on
  // both sides, so the ratio is the proof's check (one more ES256 signature verification).
  ...(['rest', 'trpc-standalone'] as const).map(
    (server): HttpPair => ({
      id: `dpop-vs-bearer-${server}`,
      group: 'dpop',
      a: [server, 'itemsPeek'],
      b: [server, 'itemsDPoP'],
      note: 'the cost of one DPoP proof check over HTTP',
    }),
  ),
  {
    id: 'layer-rest',
    group: 'where the time goes',
    a: ['rest-plain', 'bare'],
    b: ['rest', 'bare'],
    note: "@trpc-oauth2/openapi's form and challenge layer on a request without a body",
  },
  {
    id: 'layer-rest-fetch',
    group: 'where the time goes',
    a: ['rest-fetch-plain', 'bare'],
    b: ['rest-fetch', 'bare'],
    note: "the same on Fetch runtimes (trpc-to-openapi's own fetch handler makes its core per request)",
  },
  ...(['bare', 'itemsJwt', 'itemsJwtCached'] as const).map(
    (route): HttpPair => ({
      id: route === 'bare' ? 'layer-trpc-standalone' : `layer-trpc-standalone-${route}`,
      group: 'where the time goes',
      a: ['trpc-standalone-plain', route],
      b: ['trpc-standalone', route],
      note: "@trpc-oauth2/openapi's standalone handler over tRPC's own adapter (the same hooks on both)",
    }),
  ),
  {
    id: 'floor-trpc-standalone',
    group: 'where the time goes',
    a: ['node-http', 'bare'],
    b: ['trpc-standalone', 'bare'],
    note: 'the standalone handler and the procedure call over node:http alone',
  },
];
