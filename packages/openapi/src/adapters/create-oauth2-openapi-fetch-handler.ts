/**
 * trpc-to-openapi's fetch handler with the body policy, the OAuth2 hooks and RFC 6749 §5.2
 * answers for token endpoints: the REST face for Fetch runtimes.
 * @module
 */
import type { inferRouterContext } from '@trpc/server';
import type { FetchCreateContextFn } from '@trpc/server/adapters/fetch';
import type { CreateOpenApiFetchHandlerOptions, OpenApiRouter } from 'trpc-to-openapi';
import { bodyLimit } from '../body/limit.js';
import type { CreateContextOption } from './create-context-option.js';
import { REST_READS, applyBodyPolicy } from '../body/policy.js';
import { withClientUrl } from '../body/requests.js';
import { NOT_FOUND_BODY, urlBelow } from '../utils/base-path.js';
import { oauth2Hooks } from './oauth2-hooks.js';
import { collectAnswer } from './rest-answer.js';
import { NO_OPERATION, reportNoOperation, restCore } from './rest-core.js';
import { restTokenEndpoint, singleFieldsOf } from './token-endpoint-index.js';
import { indexRestEndpoints } from './rest-routes.js';
import type { ResourceMetadataOption } from '../resource/resource-metadata-option.js';
import { metadataResponder, metadataResponse } from '../resource/well-known.js';
import { isForbiddenMethod, restMethodRefusal } from '../utils/forbidden-method.js';

/**
 * The options of {@link createOAuth2OpenApiFetchHandler}: trpc-to-openapi's, plus the body limit
 * and where the handler is mounted (`basePath`, or trpc-to-openapi's own `endpoint`);
 * `createContext` may also be left out when `{ req }` with the Fetch `Request` is a context of the
 * router (see {@link CreateContextOption}).
 *
 * @example
 * ```ts
 * const options: CreateOAuth2OpenApiFetchHandlerOptions<typeof appRouter> = { basePath: '/api', router: appRouter, req, maxBodySize: 10_000 };
 * ```
 */
export type CreateOAuth2OpenApiFetchHandlerOptions<TRouter extends OpenApiRouter> = Omit<CreateOpenApiFetchHandlerOptions<TRouter>, 'endpoint' | 'createContext'> &
  CreateContextOption<inferRouterContext<TRouter>, Request, FetchCreateContextFn<TRouter>> &
  ResourceMetadataOption & {
  /** The largest body in bytes, whatever its type (413 beyond it). Default `DEFAULT_MAX_BODY_SIZE` (100 000). */
  maxBodySize?: number;
  /**
   * Where the REST routes are mounted, e.g. `/api`: stripped from the path (at a segment
   * boundary) before an operation's path is matched; a path outside it is a 404 `NOT_FOUND`.
   */
  basePath?: `/${string}`;
  /** trpc-to-openapi's name for `basePath`; `basePath` wins when both are given. */
  endpoint?: `/${string}`;
};

/**
 * trpc-to-openapi's REST handler for Fetch runtimes (what its `createOpenApiFetchHandler` does),
 * serving `application/x-www-form-urlencoded` and `multipart/form-data` bodies too (read as a
 * JSON object of their text fields: the last of repeated values wins, empty values count as
 * absent). Every body is limited to `maxBodySize` (100 000 bytes when unset; 413 beyond it),
 * and a JSON body is checked (malformed → 400 `PARSE_ERROR`, never a 500) and goes on unchanged:
 * the body policy of every handler here (`docs/contract.md#body-limits`). Each error's challenge headers
 * (`WWW-Authenticate`) are written with `oauth2ResponseMeta`, around your own `responseMeta` if
 * you give one, and your `onError` is wrapped with `oauth2OnError`, so neither it nor the
 * response ever sees the text of a malformed JSON body. A token or revocation endpoint (core's
 * `tokenEndpoint`, `revocationEndpoint`) reads at most its own `maxBodySize` and answers its
 * errors as RFC 6749 §5.2's `{ error, error_description }` with `Cache-Control: no-store`
 * (`docs/contract.md#token-responses`). `basePath` (or `endpoint`) is stripped from the path as
 * a prefix, never elsewhere in the URL. With `resourceMetadata`, it answers the RFC 9728 metadata
 * at its well-known paths, outside `basePath`. Runs wherever `fetch` does (no Node API).
 *
 * @example
 * ```ts
 * serve({
 *   fetch: (req) => createOAuth2OpenApiFetchHandler({ basePath: '/api', router: appRouter, req, createContext: ({ req }) => ({ req }) }),
 * });
 * ```
 */
export async function createOAuth2OpenApiFetchHandler<$Router extends OpenApiRouter>(
  opts: CreateOAuth2OpenApiFetchHandlerOptions<$Router>,
): Promise<Response> {
  // A HEAD is answered as its GET, without the content (Node's server leaves it out by itself).
  const response = await answer(opts);
  return opts.req.method === 'HEAD' && response.body !== null
    ? new Response(null, { status: response.status, statusText: response.statusText, headers: response.headers })
    : response;
}

async function answer<$Router extends OpenApiRouter>(opts: CreateOAuth2OpenApiFetchHandlerOptions<$Router>): Promise<Response> {
  // The metadata is at the origin's well-known path, outside any base path (RFC 9728 §3.1).
  const metadata = metadataResponder(opts)(opts.req.method, new URL(opts.req.url).pathname);
  if (metadata !== undefined) return metadataResponse(metadata);
  const url = urlBelow(opts.req.url, opts.basePath ?? opts.endpoint);
  if (url === undefined) return new Response(NOT_FOUND_BODY, { status: 404, headers: { 'content-type': 'application/json' } });
  // Only a bridge's own request object carries one (no `Request` is built with it): 405 where
  // operations are, naming their methods; elsewhere what any method gets there.
  const endpoints = indexRestEndpoints(opts.router);
  const below = new URL(url).pathname;
  if (isForbiddenMethod(opts.req.method)) {
    const refusal = restMethodRefusal(endpoints, below, opts.req.method);
    return refusal === undefined ? new Response(NOT_FOUND_BODY, { status: 404, headers: { 'content-type': 'application/json' } }) : metadataResponse(refusal);
  }
  const endpoint = restTokenEndpoint(endpoints, opts.req.method, below);
  const maxBodySize = endpoint?.maxBodySize ?? bodyLimit(opts.maxBodySize);
  // The one Request trpc-to-openapi reads: at the path below the base path, with the body as the policy decided.
  const req = withClientUrl(await applyBodyPolicy(opts.req, { reads: REST_READS, maxBodySize, refusesJsonLike: true, singleFields: singleFieldsOf(endpoint) }, url), opts.req.url);
  // trpc-to-openapi's core, made once per router (its own fetch handler makes one per request) and
  // called with `req` itself, the key of the request's record, as the Node handler calls it.
  const handle = restCore(opts.router);
  const hooks = oauth2Hooks(opts);
  const { sink, response } = collectAnswer();
  // A routed request is answered by the core; only one no operation has is looked at again.
  if ((await handle(req, hooks, sink, reportNoOperation)) !== NO_OPERATION) return response;
  // The path has operations of other methods: 405 naming them (RFC 9110 §15.5.6); a HEAD is what
  // its GET gets. Else a path no operation has: trpc-to-openapi's 404 (the core has written nothing yet).
  const refusal = restMethodRefusal(endpoints, below, opts.req.method);
  if (refusal !== undefined) return metadataResponse(refusal);
  await handle(req, hooks, sink);
  return response;
}
