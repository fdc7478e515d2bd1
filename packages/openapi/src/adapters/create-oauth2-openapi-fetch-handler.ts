/**
 * trpc-to-openapi's fetch handler with the body policy, the OAuth2 hooks and RFC 6749 §5.2
 * answers for token endpoints: the REST face for Fetch runtimes.
 * @module
 */
import { createOpenApiFetchHandler, type CreateOpenApiFetchHandlerOptions, type OpenApiRouter } from 'trpc-to-openapi';
import { bodyLimit } from '../body/limit.js';
import { REST_READS, applyBodyPolicy } from '../body/policy.js';
import { requestAt } from '../body/requests.js';
import { NOT_FOUND_BODY, urlBelow } from '../utils/base-path.js';
import { withOAuth2Hooks } from './oauth2-hooks.js';
import { openTokenErrorSlot, restBodyLimit, tokenEndpoints, tokenErrorAnswer } from './token-endpoints.js';

/**
 * The options of {@link createOAuth2OpenApiFetchHandler}: trpc-to-openapi's, plus the body limit
 * and where the handler is mounted (`basePath`, or trpc-to-openapi's own `endpoint`).
 */
export type CreateOAuth2OpenApiFetchHandlerOptions<TRouter extends OpenApiRouter> = Omit<CreateOpenApiFetchHandlerOptions<TRouter>, 'endpoint'> & {
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
 * trpc-to-openapi's fetch handler (`createOpenApiFetchHandler`) with the body policy and hooks
 * every handler here shares (docs/contract.md#body-limits): urlencoded and multipart bodies reach
 * the input as objects of their text fields, and a token or revocation endpoint answers in
 * RFC 6749 §5.2's shape (docs/contract.md#token-responses). `basePath` (or `endpoint`) is
 * stripped from the path as a prefix, never elsewhere in the URL. Runs wherever `fetch` does.
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
  const url = urlBelow(opts.req.url, opts.basePath ?? opts.endpoint);
  if (url === undefined) return new Response(NOT_FOUND_BODY, { status: 404, headers: { 'content-type': 'application/json' } });
  const maxBodySize = restBodyLimit(tokenEndpoints(opts.router), opts.req.method, new URL(url).pathname, bodyLimit(opts.maxBodySize));
  const req = await applyBodyPolicy(requestAt(opts.req, url), { reads: REST_READS, maxBodySize });
  const slot = openTokenErrorSlot(req);
  // The path is already below the base path: trpc-to-openapi's own `endpoint` strips nothing more.
  const response = await createOpenApiFetchHandler({ ...withOAuth2Hooks(opts), endpoint: '', req } as unknown as CreateOpenApiFetchHandlerOptions<$Router>);
  if (slot.response === undefined) return response;
  // A token endpoint's error: RFC 6749 §5.2's body in place of trpc-to-openapi's.
  const { status, headers, text } = tokenErrorAnswer(slot.response);
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  merged.delete('content-length');
  return new Response(text, { status, headers: merged });
}
