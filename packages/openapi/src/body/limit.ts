/**
 * The body limit every handler enforces, on the declared length and on the stream itself, so a
 * refused body is never buffered whole.
 * @module
 */
import { checkedMaxBodySize } from '@trpc-oauth2/core/protocol';
import { TRPCError } from '@trpc/server';
import { ByteBuffer } from './byte-buffer.js';
import { bodyTooLargeError, malformedBodyError } from './errors.js';
import { bodilessRequestAt, refusedRequest, requestWithBody } from './requests.js';

/**
 * The largest body read when `maxBodySize` is not given, in bytes, whatever its type and on
 * every handler: trpc-to-openapi's own default body limit. See `docs/contract.md#body-limits`.
 */
export const DEFAULT_MAX_BODY_SIZE = 100_000;

/**
 * The body limit for a `maxBodySize` option, decided here for every handler:
 * {@link DEFAULT_MAX_BODY_SIZE} when it is not given, none for `null`; any other value than a
 * whole number of bytes is a `TypeError`, as for an endpoint's (`checkedMaxBodySize`).
 *
 * @example
 * ```ts
 * bodyLimit(undefined); // 100_000
 * ```
 */
export const bodyLimit = (maxBodySize: number | null | undefined): number | null =>
  maxBodySize === null ? null : (checkedMaxBodySize(maxBodySize) ?? DEFAULT_MAX_BODY_SIZE);

/**
 * Whether a request's `Content-Length` (a Fetch `Request`, or its value as a Node request's
 * headers hold it) already says its body is larger than `maxBodySize`, so that it can be refused
 * before a byte of it is read.
 *
 * @example
 * ```ts
 * if (declaredTooLarge(request, 100_000)) throw bodyTooLargeError(100_000);
 * if (declaredTooLarge(req.headers['content-length'], 100_000)) refuse();
 * ```
 */
export function declaredTooLarge(request: Request | string | undefined, maxBodySize: number): boolean {
  const declared = request instanceof Request ? request.headers.get('content-length') : request;
  return Number(declared ?? 0) > maxBodySize;
}

/**
 * The chunks of a request body of at most `maxBodySize` bytes (`null`: no limit), as they
 * arrive. A larger body throws 413 as soon as the limit is passed (or at once, from
 * `Content-Length`), and the rest is not read. A stream that fails for another reason throws 400.
 *
 * @example
 * ```ts
 * for await (const chunk of limitedBodyChunks(request, 100_000)) hash.update(chunk);
 * ```
 */
export async function* limitedBodyChunks(request: Request, maxBodySize: number | null): AsyncGenerator<Uint8Array, void, undefined> {
  if (maxBodySize !== null && declaredTooLarge(request, maxBodySize)) throw bodyTooLargeError(maxBodySize);
  if (request.body === null) return;
  const reader = request.body.getReader();
  let size = 0;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (cause) {
        // The node adapters' own limit fails the stream with PAYLOAD_TOO_LARGE: keep that meaning.
        if (cause instanceof TRPCError && cause.code === 'PAYLOAD_TOO_LARGE') throw bodyTooLargeError(maxBodySize ?? size);
        throw malformedBodyError(undefined);
      }
      if (chunk.done) return;
      size += chunk.value.byteLength;
      if (maxBodySize !== null && size > maxBodySize) throw bodyTooLargeError(maxBodySize);
      yield chunk.value;
    }
  } finally {
    // The rest of a refused body is left unread, never cancelled: cancelling the stream of a Node
    // request destroys its socket, and the 413 could not be sent.
    reader.releaseLock();
  }
}

/**
 * Reads a request body of at most `maxBodySize` bytes (`null`: no limit) into memory, through
 * {@link limitedBodyChunks}: a larger body is refused with 413 without being read past the limit;
 * a stream that fails for another reason gives 400.
 *
 * @example
 * ```ts
 * const bytes = await readLimitedBody(request, 100_000);
 * ```
 */
export async function readLimitedBody(request: Request, maxBodySize: number | null): Promise<Uint8Array<ArrayBuffer>> {
  // Each chunk copied once into one growing buffer, none kept: a body in 1-byte chunks costs what
  // its bytes do, not an object per byte (sized at once when the length is declared, within the limit).
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  const bytes = new ByteBuffer(maxBodySize, declared);
  for await (const chunk of limitedBodyChunks(request, maxBodySize)) bytes.append(chunk);
  return bytes.take();
}

/**
 * `request` with its body limited to `maxBodySize` bytes (`null`: as it is), for an adapter that
 * reads the body itself: the body is neither read ahead nor rewritten, it streams through as it
 * came, content type and all. A body whose `Content-Length` is over the limit gives a request
 * marked with 413 `ERR_BODY_TOO_LARGE` at once, for `refuseBodyErrors`; one that only passes the
 * limit while it streams fails its reader with that same error there, and the adapter answers it
 * (tRPC hands an input's own `TRPCError` on as it is). Nothing past the limit is ever taken in.
 * A request without a body is returned as it is (at `url`, when given).
 *
 * @example
 * ```ts
 * fetchRequestHandler({ endpoint: '/trpc', router, req: limitRequestBody(req, 100_000), createContext: refuseBodyErrors(createContext) });
 * ```
 */
export function limitRequestBody(request: Request, maxBodySize: number | null, url = request.url): Request {
  if (request.body === null) return url === request.url ? request : bodilessRequestAt(request, url);
  if (maxBodySize === null) return url === request.url ? request : requestWithBody(request, request.body, request.headers, url);
  if (declaredTooLarge(request, maxBodySize)) return refusedRequest(request, bodyTooLargeError(maxBodySize), url);
  const chunks = limitedBodyChunks(request, maxBodySize);
  const body = new ReadableStream<Uint8Array>({
    // One chunk at a time, when the reader asks: a rejected `next()` errors the stream with the 413.
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return();
    },
  });
  return requestWithBody(request, body, request.headers, url);
}
