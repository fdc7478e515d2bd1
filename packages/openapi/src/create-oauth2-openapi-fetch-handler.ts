import { oauth2OnError, oauth2ResponseMeta } from '@trpc-oauth2/core';
import { createOpenApiFetchHandler, type CreateOpenApiFetchHandlerOptions, type OpenApiRouter } from 'trpc-to-openapi';
import { checkJsonRequest } from './check-json-request.js';
import { refuseBodyErrors } from './refuse-body-errors.js';
import { rewriteFormRequest } from './rewrite-form-request.js';

/**
 * The options of {@link createOAuth2OpenApiFetchHandler}: trpc-to-openapi's, plus the form body limit.
 *
 * @example
 * ```ts
 * const options: CreateOAuth2OpenApiFetchHandlerOptions<typeof appRouter> = { endpoint: '/api', router: appRouter, req, maxBodySize: 10_000 };
 * ```
 */
export type CreateOAuth2OpenApiFetchHandlerOptions<$Router extends OpenApiRouter> = CreateOpenApiFetchHandlerOptions<$Router> & {
  /** The largest body in bytes (413 beyond it). Default: 100 000 for forms, none for JSON. */
  maxBodySize?: number;
};

/**
 * trpc-to-openapi's fetch handler (`createOpenApiFetchHandler`) that also serves
 * `application/x-www-form-urlencoded` and `multipart/form-data` bodies (read as a JSON object of
 * their text fields: the last of repeated values wins, empty values count as absent) and writes
 * each error's challenge headers (`WWW-Authenticate`) with `oauth2ResponseMeta`, around your own
 * `responseMeta` if you give one. A JSON body is checked as the Node handler checks it (within
 * `maxBodySize`, well-formed) and goes on unchanged; every other request goes through untouched.
 * Your `onError` is wrapped with `oauth2OnError`, so neither it nor the response ever sees the
 * text of a malformed JSON body.
 *
 * @example
 * ```ts
 * serve({
 *   fetch: (req) => createOAuth2OpenApiFetchHandler({ endpoint: '/api', router: appRouter, req, createContext: ({ req }) => ({ req }) }),
 * });
 * ```
 */
export async function createOAuth2OpenApiFetchHandler<$Router extends OpenApiRouter>(
  opts: CreateOAuth2OpenApiFetchHandlerOptions<$Router>,
): Promise<Response> {
  const rewritten = await rewriteFormRequest(opts.req, { maxBodySize: opts.maxBodySize });
  const req = rewritten === opts.req ? await checkJsonRequest(opts.req, opts.maxBodySize ?? null) : rewritten;
  return createOpenApiFetchHandler({
    ...opts,
    req,
    createContext: refuseBodyErrors(opts.createContext as never),
    responseMeta: oauth2ResponseMeta(opts.responseMeta as never),
    onError: oauth2OnError(opts.onError as never),
  } as CreateOpenApiFetchHandlerOptions<$Router>);
}
