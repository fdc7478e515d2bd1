/**
 * The REST faces' routing of requests to the router's token and revocation endpoints, by
 * trpc-to-openapi's own matching: kept apart from token-endpoint-index.ts so that the tRPC faces,
 * which route nothing by REST paths, never load trpc-to-openapi (and its Node adapters) at all.
 * @module
 */
import type { AnyTRPCRouter } from '@trpc/server';
import { createProcedureCache, normalizePath, type OpenApiMethod, type OpenApiRouter } from 'trpc-to-openapi';
import { NOT_ROUTED, indexTokenEndpoints, type TokenEndpointIndex } from './token-endpoint-index.js';

/**
 * {@link indexTokenEndpoints} of `router`, its `route` set to trpc-to-openapi's routing, so that
 * a token endpoint's limit holds on every spelling of its path that reaches it: the first
 * operation whose pattern matches, case-insensitively, the path without its trailing slash, path
 * parameters and all. The index is the router's one, shared with its tRPC faces; its routing is
 * built only when asked, on the first REST request.
 *
 * @example
 * ```ts
 * const endpoints = indexRestEndpoints(appRouter);
 * endpoints.byPath.get(endpoints.route('POST', '/token')!)?.maxBodySize; // 16_384
 * ```
 */
export function indexRestEndpoints(router: AnyTRPCRouter): TokenEndpointIndex {
  const endpoints = indexTokenEndpoints(router);
  // Set once per router, before any REST request of a handler made with it is routed.
  if (endpoints.route === NOT_ROUTED) (endpoints as { route: TokenEndpointIndex['route'] }).route = restRoute(router);
  return endpoints;
}

function restRoute(router: AnyTRPCRouter): TokenEndpointIndex['route'] {
  let find: ReturnType<typeof createProcedureCache> | undefined;
  return (method, pathname) => {
    find ??= createProcedureCache(router as OpenApiRouter);
    return find(method as OpenApiMethod, normalizePath(pathname))?.procedure?.path;
  };
}
