import type { IncomingMessage, ServerResponse } from 'node:http';
import { headersFromContext, readHeader } from '@trpc-oauth2/core/protocol';
import type { TRPCError } from '@trpc/server';
import { incomingMessageToRequest } from '@trpc/server/adapters/node-http';
import { JSON_MEDIA_TYPE } from '../body/media-type.js';
import { markRefused } from '../body/refusal.js';
import { requestWithBody } from '../body/requests.js';

/**
 * tRPC's `incomingMessageToRequest` with the body limit of the policy, enforced by the stream
 * itself, which stops taking data once past it: a refused body is never buffered whole. An
 * `Authorization` header sent more than once reads as its values joined by `", "`, as Fetch and
 * the tRPC adapters read it (Node's `req.headers` keeps only the first). `req` is left as it is.
 * `undefined` when the request's URL is unusable.
 *
 * @example
 * ```ts
 * const request = incomingRequest(req, res, bodyLimit(opts.maxBodySize));
 * ```
 */
export function incomingRequest(req: IncomingMessage, res: ServerResponse, maxBodySize: number | null): Request | undefined {
  let request: Request;
  try {
    request = incomingMessageToRequest(req, res, { maxBodySize });
  } catch {
    return undefined; // createURL refuses a URL it cannot parse
  }
  // Otherwise `Bearer good` then `Bearer evil` on the wire would read as the clean token `good`.
  const authorization = readHeader(headersFromContext({ req }), 'authorization');
  if (authorization === undefined || authorization === request.headers.get('authorization')) return request;
  const headers = new Headers(request.headers);
  headers.set('authorization', authorization);
  return requestWithBody(request, request.body, headers);
}

/**
 * A view of `req` with a body the policy already read, for tRPC's Node adapter, which takes a
 * `body` it finds on the request instead of reading the stream: `body` is the JSON text (none
 * for `null`), `headers` say `application/json` (without the length of the original body), and a
 * refused body carries its error for `refuseBodyErrors`. Everything else is `req`'s own; `req`
 * itself is left as it is.
 *
 * @example
 * ```ts
 * handle(incomingView(req, '{"username":"alice"}'), res);
 * ```
 */
export function incomingView(req: IncomingMessage, body: string | null, error?: TRPCError): IncomingMessage {
  const headers = { ...req.headers, 'content-type': JSON_MEDIA_TYPE };
  delete headers['content-length'];
  delete headers['transfer-encoding'];
  const own: object = { headers, body: body ?? undefined };
  if (error !== undefined) markRefused(own, error);
  return new Proxy(req, {
    has: (target, key) => Reflect.has(own, key) || Reflect.has(target, key),
    get: (target, key) => {
      if (Reflect.has(own, key)) return Reflect.get(own, key);
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
