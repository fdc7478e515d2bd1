import type { HeadersLike } from './headers-like.js';

/**
 * Where a reader finds the request headers by default: `ctx.req.headers` (a Fetch `Request`
 * from the fetch adapter or trpc-to-openapi, or a Node `IncomingMessage` from the
 * node/standalone adapter), else `ctx.headers`.
 *
 * @example
 * ```ts
 * headersFromContext({ req: new Request('http://x', { headers: { authorization: 'Bearer a' } }) });
 * headersFromContext({ headers: { authorization: 'Bearer a' } }); // e.g. for createCaller
 * ```
 */
export function headersFromContext(ctx: unknown): HeadersLike | undefined {
  if (typeof ctx !== 'object' || ctx === null) return undefined;
  const { req, headers } = ctx as { req?: { headers?: unknown }; headers?: unknown };
  const found = req?.headers ?? headers;
  return typeof found === 'object' && found !== null ? (found as HeadersLike) : undefined;
}
