/**
 * tRPC's `fetchRequestHandler` with the body policy and the OAuth2 hooks, so a form-encoded token
 * request is read rather than answered 415.
 * @module
 */
import { getTRPCErrorShape, transformTRPCResponse, type AnyTRPCRouter, type inferRouterContext } from '@trpc/server';
import { fetchRequestHandler, type FetchCreateContextFn, type FetchHandlerRequestOptions } from '@trpc/server/adapters/fetch';
import { bodyLimit } from '../body/limit.js';
import { batchLimit } from './batch.js';
import type { CreateContextOption } from './create-context-option.js';
import { TOKEN_TRPC_READS, TRPC_OWN_TYPES, TRPC_READS, applyBodyPolicy } from '../body/policy.js';
import { routerSerializer, withOAuth2Hooks } from './oauth2-hooks.js';
import { indexTokenEndpoints, trpcPathBelow, trpcTokenCall } from './token-endpoint-index.js';
import { TOKEN_RESPONSE_HEADERS } from '@trpc-oauth2/core/token-endpoint';
import type { ResourceMetadataOption } from '../resource/resource-metadata-option.js';
import { metadataResponder, metadataResponse } from '../resource/well-known.js';
import { isRefusedTrpcMethod, methodNotSupported, trpcMethodsAt } from '../utils/forbidden-method.js';

/**
 * The options of {@link oauth2FetchRequestHandler}: tRPC's `fetchRequestHandler` options, plus the
 * body limit; `createContext` may also be left out when `{ req }` with the Fetch `Request` is a
 * context of the router (see {@link CreateContextOption}).
 */
export type OAuth2FetchRequestHandlerOptions<TRouter extends AnyTRPCRouter> = Omit<FetchHandlerRequestOptions<TRouter>, 'createContext'> &
  CreateContextOption<inferRouterContext<TRouter>, Request, FetchCreateContextFn<TRouter>> &
  ResourceMetadataOption & {
  /**
   * The largest body in bytes, whatever its type (urlencoded, JSON, multipart, a stream): 413
   * beyond it. Default `DEFAULT_MAX_BODY_SIZE` (100 000).
   */
  maxBodySize?: number;
};

/**
 * tRPC's `fetchRequestHandler` with the body policy and hooks every handler here shares
 * (docs/contract.md#body-limits): urlencoded bodies are accepted (tRPC alone answers them 415),
 * while JSON and multipart bodies within the limit stream through to tRPC unchanged (but a token
 * or revocation call's, which the policy reads as the REST faces do, and whose 415 for a type no
 * one reads is `invalid_request`). Runs wherever `fetch` does.
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
  // A token or revocation call is limited to its endpoint's own limit when it has one (smaller or
  // larger than the handler's), its JSON and multipart forms read by the policy as on the REST
  // faces, and a body of a type tRPC does not read either refused with its 415 as
  // `invalid_request` (docs/contract.md#body-limits).
  const limit = bodyLimit(opts.maxBodySize);
  const maxBatchSize = batchLimit(opts.maxBatchSize);
  const { maxBodySize, tokenEndpoint, singleFields } = trpcTokenCall(indexTokenEndpoints(opts.router), opts.endpoint, pathname, limit);
  let response: Response;
  if (isRefusedTrpcMethod(opts.req.method)) {
    // A method tRPC serves nothing with (only GET and POST, and HEAD its own way): tRPC would answer
    // an OPTIONS, or a PUT without a body, with a 415. `Allow` names what the path's procedures take.
    response = refusedMethod(opts, trpcMethodsAt(opts.router, trpcPathBelow(opts.endpoint, pathname), opts.allowMethodOverride));
  } else {
    const policy = {
      reads: tokenEndpoint ? TOKEN_TRPC_READS : TRPC_READS,
      maxBodySize,
      serialize: routerSerializer(opts.router),
      adapterReads: tokenEndpoint ? TRPC_OWN_TYPES : undefined,
      singleFields,
    };
    const req = await applyBodyPolicy(opts.req, policy);
    // Object.assign, not a spread with added keys, for the reason withOAuth2Hooks gives.
    response = await fetchRequestHandler(Object.assign(withOAuth2Hooks(opts), { req, maxBatchSize }) as FetchHandlerRequestOptions<$Router>);
  }
  // A token endpoint's every answer is not stored (RFC 6749 §5.1), one tRPC gives before it
  // knows the path (a 415) and a method refused here included: its responseMeta then names no path to add them by.
  if (tokenEndpoint) {
    for (const [name, value] of Object.entries(TOKEN_RESPONSE_HEADERS)) if (!response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
}

/**
 * The 405 of a method the tRPC faces refuse, before a context is made or a body read, in the
 * router's error shape (its `errorFormatter`, its transformer) and reported to `onError`, as the
 * standalone face answers it through tRPC's own exception handler.
 */
function refusedMethod<$Router extends AnyTRPCRouter>(opts: OAuth2FetchRequestHandlerOptions<$Router>, allow: string): Response {
  const error = methodNotSupported(opts.req.method);
  const config = opts.router._def._config;
  opts.onError?.({ error, type: 'unknown', path: undefined, input: undefined, ctx: undefined, req: opts.req });
  const shape = getTRPCErrorShape({ config, error, type: 'unknown', path: undefined, input: undefined, ctx: undefined });
  return new Response(JSON.stringify(transformTRPCResponse(config, { error: shape })), {
    status: 405,
    headers: { 'content-type': 'application/json', allow },
  });
}
