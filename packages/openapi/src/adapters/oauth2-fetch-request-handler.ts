/**
 * tRPC's `fetchRequestHandler` with the body policy and the OAuth2 hooks, so a form-encoded token
 * request is read rather than answered 415.
 * @module
 */
import type { AnyTRPCRouter } from '@trpc/server';
import { fetchRequestHandler, type FetchHandlerRequestOptions } from '@trpc/server/adapters/fetch';
import { bodyLimit } from '../body/limit.js';
import { batchLimit } from './batch.js';
import { TOKEN_TRPC_READS, TRPC_READS, applyBodyPolicy } from '../body/policy.js';
import { routerSerializer, withOAuth2Hooks } from './oauth2-hooks.js';
import { indexTokenEndpoints, trpcTokenCall } from './token-endpoint-index.js';
import { TOKEN_RESPONSE_HEADERS } from '@trpc-oauth2/core/token-endpoint';
import type { ResourceMetadataOption } from '../resource/resource-metadata-option.js';
import { metadataResponder, metadataResponse } from '../resource/well-known.js';

/**
 * The options of {@link oauth2FetchRequestHandler}: tRPC's `fetchRequestHandler` options, plus the body limit.
 */
export type OAuth2FetchRequestHandlerOptions<TRouter extends AnyTRPCRouter> = FetchHandlerRequestOptions<TRouter> & ResourceMetadataOption & {
  /**
   * The largest body in bytes, whatever its type (urlencoded, JSON, multipart, a stream): 413
   * beyond it. Default `DEFAULT_MAX_BODY_SIZE` (100 000).
   */
  maxBodySize?: number;
};

/**
 * tRPC's `fetchRequestHandler` with the body policy and hooks every handler here shares
 * (docs/contract.md#body-limits): urlencoded bodies are accepted (tRPC alone answers them 415),
 * while JSON and multipart bodies within the limit stream through to tRPC unchanged. Runs
 * wherever `fetch` does.
 * With `resourceMetadata`, it answers the RFC 9728 metadata at its well-known paths.
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
  const { pathname } = new URL(opts.req.url);
  const answer = metadataResponder(opts)(opts.req.method, pathname);
  if (answer !== undefined) return metadataResponse(answer);
  // A token endpoint reads at most its own limit, its JSON and multipart forms read by the policy
  // as on the standalone face (docs/contract.md#token-responses).
  const limit = bodyLimit(opts.maxBodySize);
  const { maxBodySize, ownLimit, tokenEndpoint } = trpcTokenCall(indexTokenEndpoints(opts.router), opts.endpoint, pathname, limit);
  const policy = { reads: ownLimit ? TOKEN_TRPC_READS : TRPC_READS, maxBodySize, serialize: routerSerializer(opts.router) };
  const req = await applyBodyPolicy(opts.req, policy);
  // Object.assign, not a spread with added keys, for the reason withOAuth2Hooks gives.
  const response = await fetchRequestHandler(Object.assign(withOAuth2Hooks(opts), { req, maxBatchSize: batchLimit(opts.maxBatchSize) }) as FetchHandlerRequestOptions<$Router>);
  // A token endpoint's every answer is not stored (RFC 6749 §5.1), one tRPC gives before it
  // knows the path (a 415) included: its responseMeta then names no path to add them by.
  if (tokenEndpoint) {
    for (const [name, value] of Object.entries(TOKEN_RESPONSE_HEADERS)) if (!response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
}
