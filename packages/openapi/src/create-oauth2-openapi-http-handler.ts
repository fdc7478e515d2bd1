import type { IncomingMessage, ServerResponse } from 'node:http';
import { oauth2OnError, oauth2ResponseMeta } from '@trpc-oauth2/core';
import {
  createOpenApiNodeHttpHandler,
  type CreateOpenApiHttpHandlerOptions,
  type OpenApiNextFunction,
  type OpenApiRouter,
} from 'trpc-to-openapi';
import { checkJsonRequest } from './check-json-request.js';
import { incomingRequest } from './incoming-request.js';
import { refuseBodyErrors } from './refuse-body-errors.js';
import { rewriteFormRequest } from './rewrite-form-request.js';

/**
 * The options of {@link createOAuth2OpenApiHttpHandler}: trpc-to-openapi's `createOpenApiHttpHandler` options.
 *
 * @example
 * ```ts
 * const options: CreateOAuth2OpenApiHttpHandlerOptions<typeof appRouter> = { router: appRouter, maxBodySize: 10_000 };
 * ```
 */
export type CreateOAuth2OpenApiHttpHandlerOptions<$Router extends OpenApiRouter> = CreateOpenApiHttpHandlerOptions<$Router>;

const answerBadUrl = (res: ServerResponse) => {
  res.statusCode = 400;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ message: 'Invalid URL', code: 'BAD_REQUEST' }));
};

/**
 * trpc-to-openapi's Node handler (`createOpenApiHttpHandler`, for `http.createServer`) that also
 * serves `application/x-www-form-urlencoded` and `multipart/form-data` bodies (read as a JSON
 * object of their text fields: the last of repeated values wins, empty values count as absent)
 * and writes each error's challenge headers (`WWW-Authenticate`) with `oauth2ResponseMeta`.
 * `maxBodySize` limits every body (forms: 100 000 bytes when unset); malformed JSON is the 400
 * `PARSE_ERROR` of the fetch handler, never a 500. Your `onError` is wrapped with
 * `oauth2OnError`, so neither it nor the response ever sees the text of a malformed JSON body.
 * An `Authorization` header sent more than once reads as all its values joined by `", "`, as on
 * the other faces (Node's `req.headers` keeps only the first). `next`, when given, is called for
 * paths that are not REST routes.
 *
 * @example
 * ```ts
 * const rest = createOAuth2OpenApiHttpHandler({ router: appRouter, createContext: ({ req }) => ({ req }) });
 * http.createServer((req, res) => rest(req, res)).listen(3000);
 * ```
 */
export function createOAuth2OpenApiHttpHandler<$Router extends OpenApiRouter>(
  opts: CreateOAuth2OpenApiHttpHandlerOptions<$Router>,
): (req: IncomingMessage, res: ServerResponse, next?: OpenApiNextFunction) => Promise<void> {
  const handle = createOpenApiNodeHttpHandler({
    ...opts,
    createContext: refuseBodyErrors(opts.createContext as never),
    responseMeta: oauth2ResponseMeta(opts.responseMeta as never),
    onError: oauth2OnError(opts.onError as never),
  } as CreateOAuth2OpenApiHttpHandlerOptions<$Router>);
  const formOptions = { maxBodySize: opts.maxBodySize };
  return async (req, res, next) => {
    let request = incomingRequest(req, res, formOptions);
    if (request === undefined) return answerBadUrl(res);
    const rewritten = await rewriteFormRequest(request, formOptions);
    request = rewritten === request ? await checkJsonRequest(request, opts.maxBodySize ?? null) : rewritten;
    // trpc-to-openapi's own standalone handler hands its core a Fetch Request in the same way.
    await handle(request as never, res, next);
  };
}
