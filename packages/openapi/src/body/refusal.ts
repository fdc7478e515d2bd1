/**
 * Carries a body refusal from the policy, which runs before the adapter, to `createContext`, so
 * the adapter answers it through its own error path.
 * @module
 */
import type { TRPCError } from '@trpc/server';

/** Where a refused request carries its error, until `createContext` throws it. */
const REFUSAL = Symbol.for('trpc-oauth2.openapi.body-error');

interface Refused {
  [REFUSAL]?: TRPCError;
}

/**
 * Marks a Fetch `Request` this package built as refused because of its body. The handlers look
 * the error up in `createContext` (see {@link refuseBodyErrors}), so it is answered through the
 * adapter's own error path: status, `errorFormatter`, `onError` and `responseMeta` all apply.
 *
 * @example
 * ```ts
 * markRefused(new Request(url, { method: 'POST', body: '{}' }), bodyTooLargeError(100_000));
 * ```
 */
export function markRefused<$Request extends object>(request: $Request, error: TRPCError): $Request {
  Object.defineProperty(request, REFUSAL, { value: error, configurable: true });
  return request;
}

/**
 * The error a request was marked with by {@link markRefused}, if any. A `Proxy` around the
 * request (trpc-to-openapi's fetch handler makes one) answers too.
 *
 * @example
 * ```ts
 * const error = refusalOf(opts.req);
 * if (error) throw error;
 * ```
 */
export function refusalOf(request: unknown): TRPCError | undefined {
  return typeof request === 'object' && request !== null ? (request as Refused)[REFUSAL] : undefined;
}

/**
 * Wraps an adapter's `createContext` so that a request whose body this package refused (too
 * large, malformed, a file where text is expected) fails there, with that error, before any
 * procedure runs. The adapter then answers it as any other error: its status, `errorFormatter`,
 * `onError` and `responseMeta` apply. The handlers of this package do it for you; use it when
 * wiring `rewriteFormRequest` into another adapter. See `docs/contract.md#body-limits`.
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
    const error = refusalOf(opts.req);
    if (error !== undefined) throw error;
    // Without createContext, an empty context: the readers look for headers on it, never on `undefined`.
    return createContext ? createContext(opts) : {};
  };
}
