/**
 * The `createContext`, `responseMeta` and `onError` wrappers all four handlers share, so each face
 * sends the same challenges, no-store headers and redacted errors.
 * @module
 */
import { oauth2OnError, oauth2ResponseMeta } from '@trpc-oauth2/core';
import { concealFaultInPlace, responseHeaderRecord, tokenRefusalInPlace, type HeadersLike } from '@trpc-oauth2/core/protocol';
import type { AnyTRPCRouter, TRPCError } from '@trpc/server';
import { refuseBodyErrors } from '../body/refusal.js';
import { indexTokenEndpoints, noStoreHeaders, recordTokenError } from './token-endpoint-index.js';
import type { RestHooks } from '../utils/request-state.js';
import { withCredentialVary } from './credential-vary.js';

interface Hooks {
  router: AnyTRPCRouter;
  createContext?: unknown;
  responseMeta?: unknown;
  onError?: unknown;
}

type ResponseMeta = (opts: { paths?: readonly string[] }) => { status?: number; headers?: Headers | Record<string, string | string[] | undefined> } | undefined;
type OnError = (opts: { error: unknown; path?: string; req?: unknown }) => void;

/**
 * The hooks every handler of this package wraps, the same way on all four: `createContext`
 * with `refuseBodyErrors` (a body the policy refused is answered through the adapter's own
 * error path), `responseMeta` with `oauth2ResponseMeta` (each error's `WWW-Authenticate` and
 * other challenge headers reach the response, around your own `responseMeta`), and `onError`
 * with `oauth2OnError` (neither it nor the response ever sees the text of a malformed JSON body).
 * For the router's token and revocation endpoints (core's `tokenEndpoint`, `revocationEndpoint`)
 * they add `Cache-Control: no-store` and `Pragma: no-cache` to every answer, make a middleware's
 * `UNAUTHORIZED` or `FORBIDDEN` the refusal the endpoint answers it with (core's
 * `tokenRefusalInPlace`), and leave each error's RFC 6749 §5.2 answer in the request's record for
 * the REST handlers to send (`docs/contract.md#token-responses`).
 * Every answer says `Vary: Authorization, DPoP` beside the `Vary` it has: what a procedure
 * answers depends on the credentials the request carried (docs/contract.md#body-limits).
 * See `docs/contract.md#reading-the-authorization-header`.
 *
 * @example
 * ```ts
 * fetchRequestHandler({ ...withOAuth2Hooks(opts), req });
 * ```
 */
export function withOAuth2Hooks<$Options extends Hooks>(opts: $Options): $Options {
  // Object.assign rather than `{ ...opts, createContext, … }`: a spread followed by keys the
  // options lack gives every result a hidden class of its own on Node 20, garbage outside the
  // young generation on every request of a fetch face (BENCHMARKS.md#what-promotes-a-request).
  return Object.assign({}, opts, oauth2Hooks(opts));
}

/**
 * {@link withOAuth2Hooks}'s three hooks alone, for the REST handlers, whose shared core takes
 * nothing else from the options.
 *
 * @example
 * ```ts
 * const hooks = oauth2Hooks(opts);
 * ```
 */
export function oauth2Hooks(opts: Hooks): RestHooks {
  const endpoints = indexTokenEndpoints(opts.router);
  const inner = opts.responseMeta as ResponseMeta | undefined;
  const responseMeta: ResponseMeta = (meta) => {
    const base = inner?.(meta) ?? {};
    // Every answer depends on the credentials the request carried, or not: caches are told so.
    return { ...base, headers: withCredentialVary({ ...responseHeaderRecord(base.headers), ...noStoreHeaders(endpoints, meta.paths) }) };
  };
  const onError = opts.onError as OnError | undefined;
  return {
    createContext: refuseBodyErrors(opts.createContext as never),
    responseMeta: oauth2ResponseMeta(responseMeta as never) as RestHooks['responseMeta'],
    onError: oauth2OnError((failure: { error: TRPCError; path?: string; req?: unknown }) => {
      // A fault of a middleware of a token or revocation endpoint's procedure, which the
      // endpoint's resolver never saw: concealed before tRPC's faces build their response from
      // it, as the REST faces answer it (docs/contract.md#token-responses).
      if (failure.path !== undefined && endpoints.byPath.has(failure.path)) {
        // A middleware's UNAUTHORIZED or FORBIDDEN there is the RFC 6749 §5.2 refusal the endpoint
        // answers it with, on the tRPC faces' `data.oauth2` as in the REST faces' body
        // (docs/contract.md#client-authentication).
        tokenRefusalInPlace(failure.error, (failure.req as { headers?: HeadersLike } | undefined)?.headers);
        concealFaultInPlace(failure.error);
      }
      recordTokenError(endpoints, failure);
      onError?.(failure);
    }) as RestHooks['onError'],
  };
}

/**
 * What a router's transformer makes of an input on the client side, so a form body handed on as
 * JSON reads back as the same fields (superjson wraps them, the default transformer does not).
 *
 * @example
 * ```ts
 * applyBodyPolicy(req, { reads: TRPC_READS, maxBodySize, serialize: routerSerializer(appRouter) });
 * ```
 */
export function routerSerializer(router: AnyTRPCRouter): (fields: Record<string, string>) => unknown {
  const transformer = router._def._config.transformer;
  return (fields) => transformer.input.serialize(fields);
}
