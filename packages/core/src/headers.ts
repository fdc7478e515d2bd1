/**
 * Request headers as tRPC's adapters deliver them, and how the readers find and read them.
 * See docs/contract.md#reading-the-authorization-header.
 * @module
 */

const AUTHORIZATION = 'authorization';
const SET_COOKIE = 'set-cookie';

/**
 * Request headers as either HTTP stack delivers them: a Fetch `Headers` object (fetch adapter,
 * trpc-to-openapi) or a Node `IncomingHttpHeaders` record (node/standalone adapter).
 */
export type HeadersLike =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Reads one header from either kind of {@link HeadersLike}; `name` must be lower case.
 * A header a Node record holds as a list (sent more than once) reads as its values joined by
 * `", "`, as Fetch `Headers` does.
 *
 * @example
 * ```ts
 * readHeader(new Headers({ Authorization: 'Bearer abc' }), 'authorization'); // 'Bearer abc'
 * readHeader({ authorization: 'Bearer abc' }, 'authorization');              // 'Bearer abc'
 * ```
 */
export function readHeader(headers: HeadersLike | null | undefined, name: string): string | undefined {
  if (headers == null) return undefined;
  if (typeof headers.get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | readonly string[] | undefined>)[name];
  return typeof value === 'string' || value === undefined ? value : value.join(', ');
}

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

/**
 * Node's `IncomingMessage.headers` keeps only the first `Authorization` of a request that sent
 * several (Node drops repeats of single-valued headers), so a reader would take the first token
 * and ignore the rest. Fetch `Headers` keeps every value, joined by `", "`. This gives a Node
 * request's record the same value, from `rawHeaders`, so that every face reads the same thing
 * (and a repeated header never reads as one clean token). Other requests pass through unchanged.
 */
function withRepeatedAuthorization(req: unknown, headers: HeadersLike): HeadersLike {
  const raw = (req as { rawHeaders?: unknown } | undefined)?.rawHeaders;
  // Only a header Node reduced to one string can have lost values; no header, nothing lost.
  if (!Array.isArray(raw) || typeof (headers as Record<string, unknown>)[AUTHORIZATION] !== 'string') return headers;
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name: unknown = raw[i];
    if (typeof name === 'string' && name.length === AUTHORIZATION.length && name.toLowerCase() === AUTHORIZATION) {
      values.push(String(raw[i + 1]));
    }
  }
  return values.length > 1 ? { ...(headers as Record<string, string>), [AUTHORIZATION]: values } : headers;
}

/**
 * A response's headers as a fresh plain record, from a Fetch `Headers` or a record (as a
 * `responseMeta` may return either): the shape every tRPC adapter, trpc-to-openapi's included,
 * keeps. The caller may add to it; the input is never changed. A `Headers` gives its names in
 * lower case and each header as its values joined by `", "`, but for `Set-Cookie`, whose values
 * cannot be joined (RFC 6265 §3): that is a list of every cookie, which each adapter sends as a
 * header of its own.
 *
 * @example
 * ```ts
 * const headers = responseHeaderRecord(inner?.(opts)?.headers);
 * headers['cache-control'] = 'no-store';
 * ```
 */
export function responseHeaderRecord(
  headers: Headers | Readonly<Record<string, string | string[] | undefined>> | undefined,
): Record<string, string | string[] | undefined> {
  if (!(headers instanceof Headers)) return { ...headers };
  // Iterating a Headers yields each Set-Cookie on its own, under one name: a record built from
  // the entries would keep only the last cookie.
  const record: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of headers) if (name !== SET_COOKIE) record[name] = value;
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) record[SET_COOKIE] = cookies;
  return record;
}
