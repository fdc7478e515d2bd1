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
}

// Checked on capacity (requests per second per core, from CPU time): see `runHttp`.
const keeps97: Target = { metric: 'capacity', atLeast: 0.97, text: '≥ 0.97×' };
const ahead: Target = { metric: 'capacity', atLeast: 1, text: '≥ 1.00× (ahead)' };

/**
 * Every HTTP pair, in table order.
 *
 * @example
 * ```ts
 * HTTP_PAIRS.filter((pair) => pair.group === 'security cost');
 * ```
 */
export const HTTP_PAIRS: readonly HttpPair[] = [
  ...(['trpc-standalone', 'trpc-fetch', 'rest'] as const).map(
    (server): HttpPair => ({ id: `cost-${server}`, group: 'security cost', a: [server, 'bare'], b: [server, 'items'], target: keeps97 }),
  ),
  ...(
    [
      ['rest', 'bare'],
      ['rest', 'items'],
      ['rest', 'token'],
      ['trpc-standalone', 'bare'],
      ['trpc-standalone', 'items'],
      ['trpc-fetch', 'items'],
    ] as const
  ).map(
    ([server, route]): HttpPair => ({
      id: `fastapi-fast-${server}-${route}`,
      group: 'vs FastAPI (fastest stack)',
      a: ['fastapi-fast', route],
      b: [server, route],
      target: ahead,
    }),
  ),
  ...(['bare', 'items', 'token'] as const).map(
    (route): HttpPair => ({ id: `fastapi-default-rest-${route}`, group: 'vs FastAPI (default stack)', a: ['fastapi-default', route], b: ['rest', route] }),
  ),
  {
    id: 'layer-rest',
    group: 'where the time goes',
    a: ['rest-plain', 'bare'],
    b: ['rest', 'bare'],
    note: "@trpc-oauth2/openapi's form and challenge layer on a request without a body",
  },
  {
    id: 'floor-trpc-standalone',
    group: 'where the time goes',
    a: ['node-http', 'bare'],
    b: ['trpc-standalone', 'bare'],
    note: "tRPC's adapter and procedure call over node:http alone",
  },
];
