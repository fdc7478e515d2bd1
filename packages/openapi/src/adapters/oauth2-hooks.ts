import { oauth2OnError, oauth2ResponseMeta } from '@trpc-oauth2/core';
import type { AnyTRPCRouter } from '@trpc/server';
import { refuseBodyErrors } from '../body/refusal.js';

interface Hooks {
  createContext?: unknown;
  responseMeta?: unknown;
  onError?: unknown;
}

/**
 * The hooks every handler of this package wraps, the same way on all four: `createContext`
 * with `refuseBodyErrors` (a body the policy refused is answered through the adapter's own
 * error path), `responseMeta` with `oauth2ResponseMeta` (each error's `WWW-Authenticate` and
 * other challenge headers reach the response, around your own `responseMeta`), and `onError`
 * with `oauth2OnError` (neither it nor the response ever sees the text of a malformed JSON body).
 * See `docs/contract.md#reading-the-authorization-header`.
 *
 * @example
 * ```ts
 * fetchRequestHandler({ ...withOAuth2Hooks(opts), req });
 * ```
 */
export function withOAuth2Hooks<$Options extends Hooks>(opts: $Options): $Options {
  return {
    ...opts,
    createContext: refuseBodyErrors(opts.createContext as never),
    responseMeta: oauth2ResponseMeta(opts.responseMeta as never),
    onError: oauth2OnError(opts.onError as never),
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
