import { bodyTooLargeError } from './body-errors.js';
import { refusedRequest, requestWithBody } from './json-request.js';
import { declaredTooLarge, limitedBodyChunks } from './read-limited-body.js';

/**
 * `request` with its body limited to `maxBodySize` bytes, for an adapter that reads the body
 * itself (tRPC's fetch adapter: JSON, `FormData`, a stream): the body is neither read ahead nor
 * rewritten, it streams through as it came, content type and all. A body whose `Content-Length`
 * is over the limit gives a request marked with 413 `ERR_BODY_TOO_LARGE` at once, for
 * `refuseBodyErrors`; one that only passes the limit while it streams fails its reader with that
 * same error there, and the adapter answers it (tRPC hands an input's own `TRPCError` on as it
 * is). Nothing past the limit is ever taken in. A request without a body is returned as it is.
 *
 * @example
 * ```ts
 * fetchRequestHandler({ endpoint: '/trpc', router, req: limitRequestBody(req, 100_000), createContext: refuseBodyErrors(createContext) });
 * ```
 */
export function limitRequestBody(request: Request, maxBodySize: number): Request {
  if (request.body === null) return request;
  if (declaredTooLarge(request, maxBodySize)) return refusedRequest(request, bodyTooLargeError(maxBodySize));
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
  return requestWithBody(request, body);
}
