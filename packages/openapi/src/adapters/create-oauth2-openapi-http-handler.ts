import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createOpenApiNodeHttpHandler,
  type CreateOpenApiHttpHandlerOptions,
  type OpenApiNextFunction,
  type OpenApiRouter,
} from 'trpc-to-openapi';
import { bodyLimit } from '../body/limit.js';
import { REST_READS, applyBodyPolicy } from '../body/policy.js';
import { incomingRequest } from './node-request.js';
import { withOAuth2Hooks } from './oauth2-hooks.js';

/**
 * The options of {@link createOAuth2OpenApiHttpHandler}: trpc-to-openapi's `createOpenApiHttpHandler` options.
 *
 * @example
 * ```ts
 * const options: CreateOAuth2OpenApiHttpHandlerOptions<typeof appRouter> = { router: appRouter, maxBodySize: 10_000 };
 * ```
 */
export type CreateOAuth2OpenApiHttpHandlerOptions<TRouter extends OpenApiRouter> = CreateOpenApiHttpHandlerOptions<TRouter>;

const answerBadUrl = (res: ServerResponse) => {
  res.statusCode = 400;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ message: 'Invalid URL', code: 'BAD_REQUEST' }));
};

/**
 * trpc-to-openapi's Node handler (`createOpenApiHttpHandler`, for `http.createServer`) with the
 * same body policy, hooks and answers as {@link createOAuth2OpenApiFetchHandler}: form bodies
 * served, every body within `maxBodySize` (100 000 bytes when unset), malformed JSON a 400
 * `PARSE_ERROR` (never a 500), challenge headers written, `onError` wrapped with
 * `oauth2OnError`. An `Authorization` header sent more than once reads as all its values joined
 * by `", "`, as on the other faces (Node's `req.headers` keeps only the first). `req` itself is
 * never changed: trpc-to-openapi is handed a Fetch `Request` built from it, as its own Node
 * handler does. `next`, when given, is called for paths that are not REST routes.
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
  const handle = createOpenApiNodeHttpHandler(withOAuth2Hooks(opts));
  const policy = { reads: REST_READS, maxBodySize: bodyLimit(opts.maxBodySize) };
  return async (req, res, next) => {
    const request = incomingRequest(req, res, policy.maxBodySize);
    if (request === undefined) return answerBadUrl(res);
    await handle((await applyBodyPolicy(request, policy)) as never, res, next);
  };
}
