/**
 * The `createContext`, `responseMeta` and `onError` wrappers all four handlers share, so each face
 * sends the same challenges, no-store headers and redacted errors.
 * @module
 */
import { oauth2OnError, oauth2ResponseMeta } from '@trpc-oauth2/core';
import { responseHeaderRecord } from '@trpc-oauth2/core/protocol';
import type { AnyTRPCRouter, TRPCError } from '@trpc/server';
import { refuseBodyErrors } from '../body/refusal.js';
import { noStoreHeaders, recordTokenError, tokenEndpoints } from './token-endpoints.js';

interface Hooks {
  router: AnyTRPCRouter;
  createContext?: unknown;
  responseMeta?: unknown;
  onError?: unknown;
}

type ResponseMeta = (opts: { paths?: readonly string[] }) => { status?: number; headers?: Headers | Record<string, string | string[] | undefined> } | undefined;
type OnError = (opts: { error: unknown; path?: string; req?: unknown }) => void;

/**
 * Wraps a handler's `createContext`, `responseMeta` and `onError` with the hooks every face shares
 * (docs/contract.md#body-limits), and for the router's token and revocation endpoints adds the
 * no-store headers and leaves each error's RFC 6749 §5.2 answer on the request for the REST
 * handlers to send (docs/contract.md#token-responses).
 *
 * @example
 * ```ts
 * fetchRequestHandler({ ...withOAuth2Hooks(opts), req });
 * ```
 */
export function withOAuth2Hooks<$Options extends Hooks>(opts: $Options): $Options {
  const endpoints = tokenEndpoints(opts.router);
  const inner = opts.responseMeta as ResponseMeta | undefined;
  const responseMeta: ResponseMeta = (meta) => {
    const base = inner?.(meta) ?? {};
    const noStore = noStoreHeaders(endpoints, meta.paths);
    if (Object.keys(noStore).length === 0) return base;
    return { ...base, headers: { ...responseHeaderRecord(base.headers), ...noStore } };
  };
  const onError = opts.onError as OnError | undefined;
  return {
    ...opts,
    createContext: refuseBodyErrors(opts.createContext as never),
    responseMeta: oauth2ResponseMeta(responseMeta as never),
    onError: oauth2OnError((failure: { error: TRPCError; path?: string; req?: unknown }) => {
      recordTokenError(endpoints, failure);
      onError?.(failure);
    }),
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
