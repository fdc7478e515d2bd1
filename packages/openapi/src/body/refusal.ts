/**
 * Turns a body the policy refused, which runs before the adapter, into an error thrown from
 * `createContext`, so the adapter answers it through its own error path.
 * @module
 */
import { stateOf } from '../utils/request-state.js';

/**
 * Wraps an adapter's `createContext` so that a request whose body this package refused (too
 * large, malformed, a file where text is expected) fails there, with that error, before any
 * procedure runs. The adapter then answers it as any other error: its status, `errorFormatter`,
 * `onError` and `responseMeta` apply. The handlers of this package do it for you; use it when
 * wiring `rewriteFormRequest` into another adapter, one that hands `createContext` the very request
 * it was given (as tRPC's adapters do): the refusal is found by that object. See
 * `docs/contract.md#body-limits`.
 *
 * @example
 * ```ts
 * fetchRequestHandler({ endpoint: '/trpc', router, req: await rewriteFormRequest(req), createContext: refuseBodyErrors(createContext) });
 * ```
 */
export function refuseBodyErrors<$Options extends { req: unknown }, $Context>(
  createContext: (opts: $Options) => $Context,
): (opts: $Options) => $Context;
export function refuseBodyErrors(createContext?: undefined): (opts: { req: unknown }) => Record<string, never>;
export function refuseBodyErrors(createContext?: (opts: { req: unknown }) => unknown) {
  return (opts: { req: unknown }) => {
    const error = stateOf(opts.req)?.refusal;
    if (error !== undefined) throw error;
    // Without createContext, an empty context: the readers look for headers on it, never on `undefined`.
    return createContext ? createContext(opts) : {};
  };
}
