import type { AnyTRPCRouter } from '@trpc/server';

/**
 * What a router's transformer makes of an input on the client side, so a body rewritten to JSON
 * reads back as the same fields (superjson wraps them, the default transformer does not).
 *
 * @example
 * ```ts
 * rewriteFormRequest(req, { serialize: routerSerializer(appRouter) });
 * ```
 */
export function routerSerializer(router: AnyTRPCRouter): (fields: Record<string, string>) => unknown {
  const transformer = router._def._config.transformer;
  return (fields) => transformer.input.serialize(fields);
}
