import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { bodyErrorOf, markBodyError } from './body-error.js';
import { incomingRequest } from './incoming-request.js';
import { JSON_MEDIA_TYPE } from './media-type.js';
import { isFormContentType, rewriteFormRequest, type FormRequestOptions } from './rewrite-form-request.js';

/**
 * `rewriteFormRequest` for a Node `IncomingMessage` that tRPC's node adapter reads next: a form
 * body of an accepted media type is read (within the limit) and left on `req.body` as the JSON
 * text tRPC then reads instead of the stream, and `content-type` becomes `application/json`.
 * A refused body marks `req` with its error, for `refuseBodyErrors`. Other requests, and
 * requests whose body a middleware already read, are left as they are. It never rejects.
 *
 * @example
 * ```ts
 * await rewriteIncomingForm(req, res, { mediaTypes: [URLENCODED] });
 * trpcHandler(req, res);
 * ```
 */
export async function rewriteIncomingForm(
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  options: FormRequestOptions,
): Promise<void> {
  if (!isFormContentType(req.headers['content-type'], options) || 'body' in req) return;
  const request = incomingRequest(req, res, options);
  // An unusable URL is the adapter's to answer; GET and HEAD carry no body to rewrite.
  if (request === undefined || request.body === null) return;
  let body = '{}';
  let error: TRPCError | undefined;
  try {
    const rewritten = await rewriteFormRequest(request, options);
    body = await rewritten.text();
    error = bodyErrorOf(rewritten);
  } catch (cause) {
    // Not the client's doing (say, a transformer that throws): answered as tRPC answers a bug.
    error = new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause });
  }
  req.body = body;
  req.headers['content-type'] = JSON_MEDIA_TYPE;
  delete req.headers['content-length'];
  delete req.headers['transfer-encoding'];
  if (error !== undefined) markBodyError(req, error);
}
