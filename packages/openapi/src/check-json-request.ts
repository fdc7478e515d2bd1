import { TRPCError } from '@trpc/server';
import { acceptsRequestBody } from 'trpc-to-openapi';
import { JSON_MEDIA_TYPE, mediaTypeOf } from './media-type.js';
import { jsonRequest, refusedRequest } from './json-request.js';
import { readLimitedBody } from './read-limited-body.js';

/**
 * Reads a JSON request body ahead of trpc-to-openapi, so that both its handlers answer alike:
 * its Node handler parses the body with `Response.json()` and answers a malformed one with 500,
 * its fetch handler reads any size. Malformed JSON becomes the 400 `PARSE_ERROR` of the fetch
 * handler, a body over `maxBodySize` a 413; a valid body goes on unchanged, and an empty one as
 * no body at all (as trpc-to-openapi reads an empty Node body).
 * Other requests, and methods whose body trpc-to-openapi ignores (GET, DELETE), are returned as they are.
 *
 * @example
 * ```ts
 * const checked = await checkJsonRequest(incomingMessageToRequest(req, res, { maxBodySize: null }), null);
 * ```
 */
export async function checkJsonRequest(request: Request, maxBodySize: number | null): Promise<Request> {
  if (request.body === null || !acceptsRequestBody(request.method as never) || mediaTypeOf(request.headers.get('content-type')) !== JSON_MEDIA_TYPE) {
    return request;
  }
  let text: string;
  try {
    text = new TextDecoder().decode(await readLimitedBody(request, maxBodySize));
    if (text.trim() !== '') JSON.parse(text);
  } catch (cause) {
    return refusedRequest(
      request,
      cause instanceof TRPCError ? cause : new TRPCError({ code: 'PARSE_ERROR', message: 'Failed to parse request body', cause }),
    );
  }
  return jsonRequest(request, text.trim() === '' ? null : text);
}
