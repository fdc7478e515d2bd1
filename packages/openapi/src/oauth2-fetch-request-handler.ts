import { oauth2OnError, oauth2ResponseMeta } from '@trpc-oauth2/core';
import type { AnyTRPCRouter } from '@trpc/server';
import { fetchRequestHandler, type FetchHandlerRequestOptions } from '@trpc/server/adapters/fetch';
import { limitRequestBody } from './limit-request-body.js';
import { URLENCODED } from './media-type.js';
import { refuseBodyErrors } from './refuse-body-errors.js';
import { DEFAULT_MAX_FORM_BODY_SIZE, rewriteFormRequest } from './rewrite-form-request.js';
import { routerSerializer } from './router-serializer.js';

/**
 * The options of {@link oauth2FetchRequestHandler}: tRPC's `fetchRequestHandler` options, plus the body limit.
 *
 * @example
 * ```ts
 * const options: OAuth2FetchRequestHandlerOptions<typeof appRouter> = { endpoint: '/trpc', router: appRouter, req, maxBodySize: 10_000 };
 * ```
 */
export type OAuth2FetchRequestHandlerOptions<$Router extends AnyTRPCRouter> = FetchHandlerRequestOptions<$Router> & {
  /**
   * The largest body in bytes, whatever its type (urlencoded, JSON, multipart, a stream): 413
   * beyond it. Default 100 000 ({@link DEFAULT_MAX_FORM_BODY_SIZE}).
   */
  maxBodySize?: number;
};

/**
 * tRPC's `fetchRequestHandler` that also accepts `application/x-www-form-urlencoded` bodies
 * (tRPC alone answers them 415): the form reaches the input parser as an object of its text
 * fields, the last of repeated values winning and empty values left out, through the router's
 * transformer. `multipart/form-data` stays tRPC's own (a `FormData` input). Every body, whatever
 * its type, is limited to `maxBodySize` (100 000 bytes when unset): a larger one is a 413
 * `ERR_BODY_TOO_LARGE` and is never read past the limit, while JSON and multipart bodies within it
 * stream through to tRPC unchanged. Each error's challenge headers (`WWW-Authenticate`) are
 * written with `oauth2ResponseMeta`, and your `onError` is wrapped with `oauth2OnError`, so
 * neither it nor the response ever sees the text of a malformed JSON body.
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
  // Forms' default limit holds for every body here: tRPC's fetch adapter has none of its own.
  const maxBodySize = opts.maxBodySize ?? DEFAULT_MAX_FORM_BODY_SIZE;
  const rewritten = await rewriteFormRequest(opts.req, { mediaTypes: [URLENCODED], maxBodySize, serialize: routerSerializer(opts.router) });
  const req = rewritten === opts.req ? limitRequestBody(opts.req, maxBodySize) : rewritten;
  return fetchRequestHandler({
    ...opts,
    req,
    createContext: refuseBodyErrors(opts.createContext as never),
    responseMeta: oauth2ResponseMeta(opts.responseMeta as never),
    onError: oauth2OnError(opts.onError as never),
  } as FetchHandlerRequestOptions<$Router>);
}
