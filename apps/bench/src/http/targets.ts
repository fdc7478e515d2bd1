import { BENCH_JWT } from '../bench-jwt.js';
import { HTTP_AUTHORIZATION } from '../bearer-header.js';
import type { Face } from './faces.js';
import { dpopBenchRequests } from './dpop-routes.js';

/**
 * A server the HTTP section runs: one of our faces, the REST face on the LTS Node (`rest-lts`, see
 * `LTS_MAJOR`), or a FastAPI stack.
 *
 * @example
 * ```ts
 * const server: ServerId = 'fastapi-fast';
 * ```
 */
export type ServerId = Face | 'rest-lts' | 'fastapi-default' | 'fastapi-fast';

/**
 * The routes: bare, bearer with two chained scopes (three steps), the same in one step
 * (`withScopes`; ours only, FastAPI's peer of it is `items`), the same verifying an ES256 JWT
 * (`itemsJwt`), the protected routes' request and
 * answer with no security (ours only, a control), and the form token endpoint.
 *
 * @example
 * ```ts
 * const route: RouteId = 'itemsOneStep';
 * ```
 */
export type RouteId = 'bare' | 'items' | 'itemsOneStep' | 'itemsJwt' | 'itemsJwtCached' | 'itemsPeek' | 'itemsDPoP' | 'itemsNoSecurity' | 'token';

/**
 * One route on one server: the request the load generator repeats, and how to check that the
 * server answers it as it should before any load is put on it.
 *
 * @example
 * ```ts
 * const target = httpTarget('rest', 'items');
 * target.path; // '/items'
 * ```
 */
export interface HttpTarget {
  id: `${ServerId}:${RouteId}`;
  server: ServerId;
  route: RouteId;
  method: 'GET' | 'POST';
  path: string;
  headers: Readonly<Record<string, string>>;
  body?: string;
  /** `null` when `status` and `body` are the expected answer, else what is wrong. */
  check(status: number, body: unknown): string | null;
}

/**
 * Human names of the servers, for the table.
 *
 * @example
 * ```ts
 * SERVER_LABELS['fastapi-fast']; // 'FastAPI httptools+uvloop'
 * ```
 */
export const SERVER_LABELS: Readonly<Record<ServerId, string>> = {
  'trpc-standalone': 'tRPC standalone',
  'trpc-standalone-plain': "tRPC standalone (tRPC's adapter alone)",
  'trpc-fetch': 'tRPC fetch',
  rest: 'REST (@trpc-oauth2/openapi)',
  'rest-lts': 'REST (@trpc-oauth2/openapi) on LTS Node',
  'rest-plain': 'REST (trpc-to-openapi alone)',
  'rest-fetch': 'REST fetch (@trpc-oauth2/openapi)',
  'rest-fetch-plain': 'REST fetch (trpc-to-openapi alone)',
  'node-http': 'node:http alone',
  'fastapi-default': 'FastAPI h11+asyncio',
  'fastapi-fast': 'FastAPI httptools+uvloop',
  express: 'express + express-oauth2-jwt-bearer',
  hono: 'hono + hono/jwk (node-server)',
  fastify: 'fastify + @fastify/jwt',
};

const ROUTE_LABELS: Readonly<Record<RouteId, string>> = {
  bare: 'bare',
  items: 'bearer + 2 scopes (3 steps)',
  itemsOneStep: 'bearer + 2 scopes (1 step)',
  itemsJwt: 'ES256 JWT verified + 2 scopes',
  itemsJwtCached: 'ES256 JWT through cacheVerifier + 2 scopes',
  itemsPeek: 'Bearer, principal known at once + 2 scopes',
  itemsDPoP: 'DPoP, ES256 proof checked + 2 scopes',
  itemsNoSecurity: 'same request and answer, no security',
  token: 'token (form)',
};

const ROUTE_PATHS: Readonly<Record<RouteId, string>> = {
  bare: '/bare',
  items: '/items',
  itemsOneStep: '/items-one-step',
  itemsJwt: '/items-jwt',
  itemsJwtCached: '/items-jwt-cached',
  itemsPeek: '/items-peek',
  itemsDPoP: '/items-dpop',
  itemsNoSecurity: '/items-no-security',
  token: '/token',
};

const isFastApi = (server: ServerId) => server === 'fastapi-default' || server === 'fastapi-fast';

/**
 * How the tables name `route` on `server`: ours say how many tRPC steps the protected route
 * takes; FastAPI's has no such steps.
 *
 * @example
 * ```ts
 * targetLabel('rest', 'itemsOneStep'); // 'REST (@trpc-oauth2/openapi) bearer + 2 scopes (1 step)'
 * targetLabel('fastapi-fast', 'items'); // 'FastAPI httptools+uvloop bearer + 2 scopes'
 * ```
 */
export const targetLabel = (server: ServerId, route: RouteId): string =>
  `${SERVER_LABELS[server]} ${isFastApi(server) && route === 'items' ? 'bearer + 2 scopes' : ROUTE_LABELS[route]}`;

const TOKEN = HTTP_AUTHORIZATION.slice('Bearer '.length);
/** The DPoP pair's token and a proof of each face's URL, made once per bench process. */
const DPOP = await dpopBenchRequests([`/trpc/itemsDPoP`, '/items-dpop']);
const FORM_BODY = new URLSearchParams({ grant_type: 'password', username: 'alice', password: 's3cret', scope: 'me items' }).toString();

const isTrpc = (server: ServerId) => server === 'trpc-standalone' || server === 'trpc-standalone-plain' || server === 'trpc-fetch';

const expected: Readonly<Record<RouteId, unknown>> = {
  bare: { token: null, scopes: [] },
  items: { token: TOKEN, scopes: ['items', 'me'] },
  itemsOneStep: { token: TOKEN, scopes: ['items', 'me'] },
  itemsJwt: { token: BENCH_JWT.token, scopes: ['items', 'me'] },
  itemsJwtCached: { token: BENCH_JWT.token, scopes: ['items', 'me'] },
  itemsPeek: { token: DPOP.token, scopes: ['items', 'me'] },
  itemsDPoP: { token: DPOP.token, scopes: ['items', 'me'] },
  itemsNoSecurity: { token: TOKEN, scopes: ['items', 'me'] },
  token: { access_token: 'token-of-alice', token_type: 'bearer', scope: 'me items' },
};

// Scope order is each framework's own (FastAPI lists the outer Security first), so compare sorted.
const normalise = (value: unknown): unknown =>
  typeof value === 'object' && value !== null && Array.isArray((value as { scopes?: unknown }).scopes)
    ? { ...value, scopes: [...(value as { scopes: string[] }).scopes].sort() }
    : value;

/**
 * The target for `route` on `server`.
 *
 * @example
 * ```ts
 * httpTarget('trpc-standalone', 'bare').path; // '/trpc/bare'
 * ```
 */
export function httpTarget(server: ServerId, route: RouteId): HttpTarget {
  const headers: Record<string, string> = {};
  if (route === 'items' || route === 'itemsOneStep' || route === 'itemsNoSecurity') headers.authorization = HTTP_AUTHORIZATION;
  if (route === 'itemsJwt' || route === 'itemsJwtCached') headers.authorization = `Bearer ${BENCH_JWT.token}`;
  if (route === 'itemsPeek') headers.authorization = `Bearer ${DPOP.token}`;
  if (route === 'itemsDPoP') {
    headers.authorization = `DPoP ${DPOP.token}`;
    headers.dpop = DPOP.proofs[isTrpc(server) ? `/trpc/${route}` : ROUTE_PATHS[route]]!;
  }
  if (route === 'token') headers['content-type'] = 'application/x-www-form-urlencoded';
  const want = JSON.stringify(expected[route]);
  return {
    id: `${server}:${route}`,
    server,
    route,
    method: route === 'token' ? 'POST' : 'GET',
    // tRPC calls a procedure by its name; REST and FastAPI by the path the route declares.
    path: isTrpc(server) ? `/trpc/${route}` : ROUTE_PATHS[route],
    headers,
    ...(route === 'token' ? { body: FORM_BODY } : {}),
    check(status, body) {
      const data = isTrpc(server) ? (body as { result?: { data?: unknown } } | null)?.result?.data : body;
      const got = JSON.stringify(normalise(data));
      if (status === 200 && got === want) return null;
      return `answered ${status} ${JSON.stringify(body).slice(0, 160)}, expected 200 ${want}`;
    },
  };
}
