import { TRPCError } from '@trpc/server';
import { bodyTooLargeError, malformedBodyError } from './body-errors.js';

const concat = (chunks: readonly Uint8Array[], size: number) => {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
};

/**
 * Reads a request body of at most `maxBodySize` bytes (`null`: no limit). A larger body is
 * refused with 413 as soon as the limit is passed (or at once, from `Content-Length`), and the
 * rest is not read. A stream that fails for another reason gives 400.
 *
 * @example
 * ```ts
 * const bytes = await readLimitedBody(request, 100_000);
 * ```
 */
export async function readLimitedBody(request: Request, maxBodySize: number | null): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  // The rest of a refused body is left unread, never cancelled: cancelling the stream of a Node
  // request destroys its socket, and the 413 could not be sent.
  if (maxBodySize !== null && declared > maxBodySize) throw bodyTooLargeError(maxBodySize);
  if (request.body === null) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      size += chunk.value.byteLength;
      if (maxBodySize !== null && size > maxBodySize) break;
      chunks.push(chunk.value);
    }
  } catch (cause) {
    // The node adapters' own limit fails the stream with PAYLOAD_TOO_LARGE: keep that meaning.
    if (cause instanceof TRPCError && cause.code === 'PAYLOAD_TOO_LARGE') throw bodyTooLargeError(maxBodySize ?? size);
    throw malformedBodyError(undefined);
  }
  if (maxBodySize !== null && size > maxBodySize) {
    reader.releaseLock();
    throw bodyTooLargeError(maxBodySize);
  }
  return concat(chunks, size);
}
