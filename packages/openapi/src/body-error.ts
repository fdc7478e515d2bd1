import type { TRPCError } from '@trpc/server';

/** Where a refused request carries its error, until `createContext` throws it. */
const BODY_ERROR = Symbol.for('trpc-oauth2.openapi.body-error');

interface WithBodyError {
  [BODY_ERROR]?: TRPCError;
}

/**
 * Marks a request (a Fetch `Request` or a Node `IncomingMessage`) as refused because of its
 * body. The handlers of this package look the error up in `createContext` (see
 * `refuseBodyErrors`), so it is answered through the adapter's own error path: status,
 * `errorFormatter`, `onError` and `responseMeta` all apply.
 *
 * @example
 * ```ts
 * markBodyError(req, bodyTooLargeError(100_000));
 * ```
 */
export function markBodyError<$Request extends object>(request: $Request, error: TRPCError): $Request {
  Object.defineProperty(request, BODY_ERROR, { value: error, configurable: true });
  return request;
}

/**
 * The error a request was marked with by `markBodyError`, if any. A `Proxy` around the request
 * (trpc-to-openapi's fetch handler makes one) answers too.
 *
 * @example
 * ```ts
 * const error = bodyErrorOf(opts.req);
 * if (error) throw error;
 * ```
 */
export function bodyErrorOf(request: unknown): TRPCError | undefined {
  return typeof request === 'object' && request !== null ? (request as WithBodyError)[BODY_ERROR] : undefined;
}
