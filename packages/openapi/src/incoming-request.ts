import type { IncomingMessage, ServerResponse } from 'node:http';
import { incomingMessageToRequest } from '@trpc/server/adapters/node-http';
import { formBodyLimit, isFormContentType, type FormRequestOptions } from './rewrite-form-request.js';

/**
 * tRPC's `incomingMessageToRequest`, with the body limit that applies to the request: a form's
 * (default 100 000 bytes) for a form body, `maxBodySize` (or none) for any other. The limit is
 * enforced by the stream itself, which stops taking data once past it: a refused body is never
 * buffered whole. `undefined` when the request's URL is unusable.
 *
 * @example
 * ```ts
 * const request = incomingRequest(req, res, { maxBodySize: opts.maxBodySize });
 * ```
 */
export function incomingRequest(req: IncomingMessage, res: ServerResponse, options: FormRequestOptions): Request | undefined {
  const form = isFormContentType(req.headers['content-type'], options);
  try {
    return incomingMessageToRequest(req, res, { maxBodySize: form ? formBodyLimit(options.maxBodySize) : (options.maxBodySize ?? null) });
  } catch {
    return undefined; // createURL refuses a URL it cannot parse
  }
}
