import { oauth2ResponseMeta } from '@trpc-oauth2/core';
import type { AnyTRPCRouter } from '@trpc/server';
import { fetchRequestHandler, type FetchHandlerRequestOptions } from '@trpc/server/adapters/fetch';
import { URLENCODED } from './media-type.js';
import { refuseBodyErrors } from './refuse-body-errors.js';
import { rewriteFormRequest } from './rewrite-form-request.js';
import { routerSerializer } from './router-serializer.js';

/**
 * The options of {@link oauth2FetchRequestHandler}: tRPC's `fetchRequestHandler` options, plus the form body limit.
 *
 * @example
 * ```ts
 * const options: OAuth2FetchRequestHandlerOptions<typeof appRouter> = { endpoint: '/trpc', router: appRouter, req, maxBodySize: 10_000 };
 * ```
 */
export type OAuth2FetchRequestHandlerOptions<$Router extends AnyTRPCRouter> = FetchHandlerRequestOptions<$Router> & {
  /** The largest urlencoded body in bytes (413 beyond it). Default 100 000. */
  maxBodySize?: number;
};

/**
 * tRPC's `fetchRequestHandler` that also accepts `application/x-www-form-urlencoded` bodies
 * (tRPC alone answers them 415): the form reaches the input parser as an object of its text
 * fields, the last of repeated values winning and empty values left out, through the router's
 * transformer. `multipart/form-data` stays tRPC's own (a `FormData` input). Each error's
 * challenge headers (`WWW-Authenticate`) are written with `oauth2ResponseMeta`.
 *
 * @example
 * ```ts
 * serve({
 *   fetch: (req) => oauth2FetchRequestHandler({ endpoint: '/trpc', router: appRouter, req, createContext: ({ req }) => ({ req }) }),
 * });
 * ```
 */
export async function oauth2FetchRequestHandler<$Router extends AnyTRPCRouter>(
  opts: OAuth2FetchRequestHandlerOptions<$Router>,
): Promise<Response> {
  const req = await rewriteFormRequest(opts.req, {
    mediaTypes: [URLENCODED],
    maxBodySize: opts.maxBodySize,
    serialize: routerSerializer(opts.router),
  });
  return fetchRequestHandler({
    ...opts,
    req,
    createContext: refuseBodyErrors(opts.createContext as never),
    responseMeta: oauth2ResponseMeta(opts.responseMeta as never),
  } as FetchHandlerRequestOptions<$Router>);
}
