import type { HeadersLike } from './headers-like.js';
import { withRepeatedAuthorization } from './repeated-authorization.js';

/**
 * Where a reader finds the request headers by default: `ctx.req.headers` (a Fetch `Request`
 * from the fetch adapter or trpc-to-openapi, or a Node `IncomingMessage` from the
 * node/standalone adapter), else `ctx.headers`. An `Authorization` header sent more than once
 * reads as its values joined by `", "` from either kind of request (Node itself keeps only the first).
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
  if (typeof found !== 'object' || found === null) return undefined;
  // A Node request sent with several Authorization headers reads as all of them, as Fetch does.
  return req?.headers === found ? withRepeatedAuthorization(req, found as HeadersLike) : (found as HeadersLike);
}
