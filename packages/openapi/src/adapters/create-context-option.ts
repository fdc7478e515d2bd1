/**
 * The `createContext` option of the four handlers, typed as they run without one.
 * @module
 */

/**
 * A handler's `createContext` option, in place of tRPC's `CreateContextCallback`. tRPC makes it
 * optional only when the router's context declares nothing (`object extends TContext`), since its
 * adapters then pass `undefined` as the context. The handlers of this package given no
 * `createContext` make the context the request alone, `{ req }` (see `refuseBodyErrors`), so it
 * is optional too when `{ req: TRequest }` is a context of the router, `TRequest` being the
 * request the handler hands `createContext` (a Node `IncomingMessage` on `createOAuth2HTTPHandler`,
 * tRPC's standalone adapter; a Fetch `Request` on the others). So `{ req: IncomingMessage |
 * Request }` may leave it out on every handler, `{ req: Request }` on those that give a Fetch
 * `Request`, and a context that needs more than the request still needs one.
 *
 * @example
 * ```ts
 * type Options = CreateContextOption<{ req: Request }, Request, (opts: { req: Request }) => { req: Request }>; // { createContext?: … }
 * ```
 */
export type CreateContextOption<TContext, TRequest, TFunction extends (...args: any[]) => any> = object extends TContext
  ? Partial<CreateContextField<TFunction>>
  : { req: TRequest } extends TContext
    ? Partial<CreateContextField<TFunction>>
    : CreateContextField<TFunction>;

interface CreateContextField<TFunction> {
  /**
   * Creates the context for each request. Without it, the context is `{ req }`, the request the
   * handler hands `createContext`.
   * @see https://trpc.io/docs/server/context#creating-the-context
   */
  createContext: TFunction;
}
