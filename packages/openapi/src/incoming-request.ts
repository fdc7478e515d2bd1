import type { IncomingMessage, ServerResponse } from 'node:http';
import { headersFromContext, readHeader } from '@trpc-oauth2/core/protocol';
import { incomingMessageToRequest } from '@trpc/server/adapters/node-http';
import { formBodyLimit, isFormContentType, type FormRequestOptions } from './rewrite-form-request.js';

/**
 * tRPC's `incomingMessageToRequest`, with the body limit that applies to the request: a form's
 * (default 100 000 bytes) for a form body, `maxBodySize` (or none) for any other. The limit is
 * enforced by the stream itself, which stops taking data once past it: a refused body is never
 * buffered whole. An `Authorization` header sent more than once reads as its values joined by
 * `", "`, as Fetch and the tRPC adapters read it (Node's `req.headers` keeps only the first), and
 * `req.headers.authorization` is set to that value. `undefined` when the request's URL is unusable.
 *
 * @example
 * ```ts
 * const request = incomingRequest(req, res, { maxBodySize: opts.maxBodySize });
 * ```
 */
export function incomingRequest(req: IncomingMessage, res: ServerResponse, options: FormRequestOptions): Request | undefined {
  const form = isFormContentType(req.headers['content-type'], options);
  // Otherwise `Bearer good` then `Bearer evil` on the wire would read as the clean token `good`.
  const authorization = readHeader(headersFromContext({ req }), 'authorization');
  if (authorization !== undefined) req.headers.authorization = authorization;
  try {
    return incomingMessageToRequest(req, res, { maxBodySize: form ? formBodyLimit(options.maxBodySize) : (options.maxBodySize ?? null) });
  } catch {
    return undefined; // createURL refuses a URL it cannot parse
  }
}
