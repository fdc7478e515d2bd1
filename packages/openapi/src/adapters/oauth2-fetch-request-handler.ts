import type { AnyTRPCRouter } from '@trpc/server';
import { fetchRequestHandler, type FetchHandlerRequestOptions } from '@trpc/server/adapters/fetch';
import { bodyLimit } from '../body/limit.js';
import { batchLimit } from './batch.js';
import { TRPC_READS, applyBodyPolicy } from '../body/policy.js';
import { routerSerializer, withOAuth2Hooks } from './oauth2-hooks.js';
import { indexTokenEndpoints, trpcBodyLimit } from './token-endpoint-index.js';

/**
 * The options of {@link oauth2FetchRequestHandler}: tRPC's `fetchRequestHandler` options, plus the body limit.
 *
 * @example
 * ```ts
 * const options: OAuth2FetchRequestHandlerOptions<typeof appRouter> = { endpoint: '/trpc', router: appRouter, req, maxBodySize: 10_000 };
 * ```
 */
export type OAuth2FetchRequestHandlerOptions<TRouter extends AnyTRPCRouter> = FetchHandlerRequestOptions<TRouter> & {
  /**
   * The largest body in bytes, whatever its type (urlencoded, JSON, multipart, a stream): 413
   * beyond it. Default `DEFAULT_MAX_BODY_SIZE` (100 000).
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
 * stream through to tRPC unchanged (`docs/contract.md#body-limits`). Each error's challenge
 * headers (`WWW-Authenticate`) are written with `oauth2ResponseMeta`, and your `onError` is
 * wrapped with `oauth2OnError`, so neither it nor the response ever sees the text of a malformed
 * JSON body. A batch holds at most `maxBatchSize` calls (`DEFAULT_MAX_BATCH_SIZE`, 20, when
 * unset; 400 beyond it, before any call runs). Runs wherever `fetch` does (no Node API).
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
  // A token endpoint reads at most its own limit (docs/contract.md#token-responses).
  const maxBodySize = trpcBodyLimit(indexTokenEndpoints(opts.router), opts.endpoint, new URL(opts.req.url).pathname, bodyLimit(opts.maxBodySize));
  const policy = { reads: TRPC_READS, maxBodySize, serialize: routerSerializer(opts.router) };
  const req = await applyBodyPolicy(opts.req, policy);
  return fetchRequestHandler({ ...withOAuth2Hooks(opts), req, maxBatchSize: batchLimit(opts.maxBatchSize) } as FetchHandlerRequestOptions<$Router>);
}
