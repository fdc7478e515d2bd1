import type { HeadersLike } from './headers-like.js';

const AUTHORIZATION = 'authorization';

/**
 * Node's `IncomingMessage.headers` keeps only the first `Authorization` of a request that sent
 * several (Node drops repeats of single-valued headers), so a reader would take the first token
 * and ignore the rest. Fetch `Headers` keeps every value, joined by `", "`. This gives a Node
 * request's record the same value, from `rawHeaders`, so that every face reads the same thing
 * (and a repeated header never reads as one clean token). Other requests pass through unchanged.
 *
 * @example
 * ```ts
 * // GET / with "Authorization: Bearer a" and "Authorization: Bearer b" on the wire:
 * readHeader(withRepeatedAuthorization(req, req.headers), 'authorization'); // 'Bearer a, Bearer b'
 * ```
 */
export function withRepeatedAuthorization(req: unknown, headers: HeadersLike): HeadersLike {
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
