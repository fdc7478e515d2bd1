/**
 * The router's token and revocation endpoints, found once: their body limits per route, their
 * no-store headers, and the RFC 6749 §5.2 answer their errors get on the REST faces.
 * @module
 */
import { TOKEN_RESPONSE_HEADERS, tokenErrorResponse, type TokenErrorResponse } from '@trpc-oauth2/core/token-endpoint';
import { getTokenEndpoint, type TokenEndpointDeclaration } from '@trpc-oauth2/core/protocol';
import type { AnyTRPCRouter } from '@trpc/server';
import { stateOf } from '../utils/request-state.js';

/**
 * The token and revocation endpoints of a router (built with core's `tokenEndpoint` /
 * `revocationEndpoint`), found once from their procedures: by tRPC path, and by REST route
 * (`POST /token`) when they have `openapi` meta. See `docs/contract.md#token-responses`.
 *
 * @example
 * ```ts
 * const endpoints = indexTokenEndpoints(appRouter);
 * endpoints.byPath.has('auth.token'); // true
 * ```
 */
export interface TokenEndpointIndex {
  readonly byPath: ReadonlyMap<string, TokenEndpointDeclaration>;
  /** The methods of the endpoints' REST routes (`openapi` meta): a request of another method needs no routing here. */
  readonly routedMethods: ReadonlySet<string>;
  /**
   * The tRPC path of the operation a REST request routes to, by trpc-to-openapi's own matching
   * (its `createProcedureCache`): `undefined` when none does. Set by the REST handlers
   * (`indexRestEndpoints` of rest-routes.ts), the only ones that load trpc-to-openapi: until then,
   * and for a router only the tRPC faces serve, nothing is routed.
   */
  readonly route: (method: string, pathname: string) => string | undefined;
  /** The router's `pathSeparator` (tRPC's option: `.` unless given), which a tRPC URL spells a path with. */
  readonly pathSeparator: string;
}

const cache = new WeakMap<object, TokenEndpointIndex>();

/**
 * Finds the token and revocation endpoints of `router` (see {@link TokenEndpointIndex}); read once per router.
 *
 * @example
 * ```ts
 * const endpoints = indexTokenEndpoints(appRouter);
 * endpoints.byPath.get('auth.token')?.maxBodySize; // 16_384
 * ```
 */
export function indexTokenEndpoints(router: AnyTRPCRouter): TokenEndpointIndex {
  const known = cache.get(router);
  if (known !== undefined) return known;
  const byPath = new Map<string, TokenEndpointDeclaration>();
  const routedMethods = new Set<string>();
  for (const [path, procedure] of Object.entries(router._def.procedures as Record<string, unknown>)) {
    const declaration = getTokenEndpoint(procedure);
    if (declaration === undefined) continue;
    byPath.set(path, declaration);
    const openapi = (procedure as { _def?: { meta?: { openapi?: { enabled?: boolean; method?: string } } } })._def?.meta?.openapi;
    if (openapi !== undefined && openapi.enabled !== false && typeof openapi.method === 'string') routedMethods.add(openapi.method.toUpperCase());
  }
  const separator: unknown = (router._def._config as { pathSeparator?: unknown }).pathSeparator;
  const endpoints = { byPath, routedMethods, route: NOT_ROUTED, pathSeparator: typeof separator === 'string' && separator !== '' ? separator : '.' };
  cache.set(router, endpoints);
  return endpoints;
}

/** The routing of a router no REST handler serves (yet): no REST request reaches an operation through it. */
export const NOT_ROUTED: TokenEndpointIndex['route'] = () => undefined;

/**
 * What a request to a tRPC face asks of the router's token and revocation endpoints (a batch
 * names several paths, comma-separated): whether it calls one at all (`tokenEndpoint`), so that
 * the policy reads its body (urlencoded, JSON and multipart, as on the REST faces: a file part is
 * refused, JSON that is not UTF-8 too, a form that repeats a field the endpoint reads, RFC 6749
 * §3.2, too: `singleFields`) and its every answer carries `Cache-Control: no-store`, an
 * error tRPC gives before it knows the paths (a 415) included; and the body limit
 * (docs/contract.md#body-limits): the smallest of the limits of the calls it names, an endpoint's
 * own `maxBodySize` for an endpoint that has one, `limit` (the handler's) for any other call. A
 * token endpoint's own limit thus holds whether it is smaller or larger than the handler's, and a
 * batch never lifts the handler's limit off the ordinary calls it holds.
 *
 * @example
 * ```ts
 * trpcTokenCall(endpoints, '/trpc', new URL(request.url).pathname, 100_000); // { maxBodySize: 16_384, tokenEndpoint: true, singleFields: Set {…} } for /trpc/auth.token
 * ```
 */
export function trpcTokenCall(
  endpoints: TokenEndpointIndex,
  basePath: string,
  pathname: string,
  limit: number | null,
): { maxBodySize: number | null; tokenEndpoint: boolean; singleFields: ReadonlySet<string> | undefined } {
  if (endpoints.byPath.size === 0) return { maxBodySize: limit, tokenEndpoint: false, singleFields: undefined };
  // `undefined` until a call is seen; `null` is no limit.
  let maxBodySize: number | null | undefined;
  let singleFields: ReadonlySet<string> | undefined;
  for (const path of calledPaths(basePath, pathname, endpoints.pathSeparator)) {
    const endpoint = endpoints.byPath.get(path);
    // The fields of the (first) endpoint called: a form is one call's input.
    singleFields ??= singleFieldsOf(endpoint);
    const own = endpoint?.maxBodySize ?? limit;
    if (maxBodySize === undefined || maxBodySize === null || (own !== null && own < maxBodySize)) maxBodySize = own;
  }
  return { maxBodySize: maxBodySize === undefined ? limit : maxBodySize, tokenEndpoint: singleFields !== undefined, singleFields };
}

/**
 * The procedure paths a request to a tRPC face calls, as tRPC's adapters cut them: the base
 * path's length off the front, whatever stands there (`/TRPC/auth.token` and `/abcd/auth.token`
 * call `auth.token` below `/trpc`), decoded, the router's path separator read as `.` (with `~`,
 * `auth~token` is `auth.token`, and so is `auth.token` still). None for a path that does not
 * decode: tRPC refuses it with 400 BAD_REQUEST.
 */
function calledPaths(basePath: string, pathname: string, separator: string): string[] {
  const path = decodedPath(trpcPathBelow(basePath, pathname));
  if (path === undefined) return [];
  return (separator === '.' ? path : path.split(separator).join('.')).split(',');
}

/**
 * The path of the call (or batch) a request to a tRPC face names, as tRPC's adapters cut it: the
 * base path's length off the front of `pathname`, whatever stands there, one slash off each end;
 * not decoded.
 *
 * @example
 * ```ts
 * trpcPathBelow('/trpc', '/trpc/users.me'); // 'users.me'
 * ```
 */
export function trpcPathBelow(basePath: string, pathname: string): string {
  return trimSlashes(trimSlashes(pathname).slice(trimSlashes(basePath).length));
}

/** One leading and one trailing slash off, as tRPC's adapters trim a path and their base path. */
function trimSlashes(path: string): string {
  const rest = path.startsWith('/') ? path.slice(1) : path;
  return rest.endsWith('/') ? rest.slice(0, -1) : rest;
}

/**
 * `decodeURIComponent`, but `undefined` for a malformed escape (`%E0`) where it would throw.
 *
 * @example
 * ```ts
 * decodedPath('a%2Cb'); // 'a,b'
 * ```
 */
export function decodedPath(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
}

/**
 * The body limit for a request to the REST face: the token endpoint's own `maxBodySize` when the
 * request (method and path below the handler's prefix) routes to one, as trpc-to-openapi routes
 * it (`/TOKEN`, `/token/` are `/token`), else `limit`. See `docs/contract.md#body-limits`.
 *
 * @example
 * ```ts
 * restBodyLimit(endpoints, 'POST', '/Token/', 100_000); // 16_384
 * ```
 */
export function restBodyLimit(endpoints: TokenEndpointIndex, method: string, pathname: string, limit: number | null): number | null {
  return restTokenEndpoint(endpoints, method, pathname)?.maxBodySize ?? limit;
}

/**
 * The token or revocation endpoint a REST request (method and path below the handler's prefix)
 * routes to, as trpc-to-openapi routes it; `undefined` when it routes to none.
 *
 * @example
 * ```ts
 * restTokenEndpoint(endpoints, 'POST', '/token')?.fields; // ['grant_type', 'username', …]
 * ```
 */
export function restTokenEndpoint(endpoints: TokenEndpointIndex, method: string, pathname: string): TokenEndpointDeclaration | undefined {
  // Only a request of an endpoint's method is routed (a GET of the API pays nothing here).
  const upper = method.toUpperCase();
  if (!endpoints.routedMethods.has(upper)) return undefined;
  const path = endpoints.route(upper, pathname);
  return path === undefined ? undefined : endpoints.byPath.get(path);
}

const singleFieldSets = new WeakMap<TokenEndpointDeclaration, ReadonlySet<string>>();

/**
 * The form fields an endpoint reads, which a form may send once only (RFC 6749 §3.2: the body
 * policy's `singleFields`); `undefined` for no endpoint. One set per endpoint, made once.
 *
 * @example
 * ```ts
 * singleFieldsOf(restTokenEndpoint(endpoints, 'POST', '/revoke'))?.has('token'); // true
 * ```
 */
export function singleFieldsOf(endpoint: TokenEndpointDeclaration | undefined): ReadonlySet<string> | undefined {
  if (endpoint === undefined) return undefined;
  let fields = singleFieldSets.get(endpoint);
  if (fields === undefined) singleFieldSets.set(endpoint, (fields = new Set(endpoint.fields)));
  return fields;
}

/**
 * Whether a REST path (below the handler's prefix) is a token or revocation endpoint's route, by
 * any of the methods they are routed by: a method refused before routing (`TRACE`) is answered
 * there with `Cache-Control: no-store` too.
 *
 * @example
 * ```ts
 * restTokenRoute(endpoints, '/token'); // true
 * ```
 */
export function restTokenRoute(endpoints: TokenEndpointIndex, pathname: string): boolean {
  for (const method of endpoints.routedMethods) {
    const path = endpoints.route(method, pathname);
    if (path !== undefined && endpoints.byPath.has(path)) return true;
  }
  return false;
}

/**
 * In `onError`: when the failed procedure is a token or revocation endpoint, leaves the RFC 6749
 * §5.2 answer of its error in the request's record, for a REST handler to send in place of
 * trpc-to-openapi's error body.
 *
 * @example
 * ```ts
 * onError: (opts) => recordTokenError(endpoints, opts),
 * ```
 */
export function recordTokenError(endpoints: TokenEndpointIndex, opts: { error: unknown; path?: string | undefined; req?: unknown }): void {
  if (opts.path === undefined || !endpoints.byPath.has(opts.path)) return;
  const state = stateOf(opts.req);
  if (state !== undefined) state.tokenError = tokenErrorResponse(opts.error);
}

/**
 * The `Cache-Control: no-store` and `Pragma: no-cache` of a token endpoint's answers, for the
 * `responseMeta` of a face whose `info` names no procedure (trpc-to-openapi's), found by path.
 *
 * @example
 * ```ts
 * Object.assign(headers, noStoreHeaders(endpoints, ['auth.token']));
 * ```
 */
export function noStoreHeaders(endpoints: TokenEndpointIndex, paths: readonly string[] | undefined): Record<string, string> {
  return paths?.some((path) => endpoints.byPath.has(path)) ? { ...TOKEN_RESPONSE_HEADERS } : {};
}
