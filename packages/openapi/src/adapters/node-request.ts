/**
 * Turns a Node request into what the handlers read (a Fetch `Request` within the body limit, or
 * a view with the body already read), and keeps a malformed URL a 400 rather than tRPC's 500.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { headersFromContext, readHeader } from '@trpc-oauth2/core/protocol';
import { TRPCError } from '@trpc/server';
import { createURL, incomingMessageToRequest } from '@trpc/server/adapters/node-http';
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
export function incomingView(req: IncomingMessage, body: string | null, error?: TRPCError, extraHeaders: IncomingMessage['headers'] = {}): IncomingMessage {
  const headers: IncomingMessage['headers'] = { ...req.headers, ...extraHeaders, 'content-type': JSON_MEDIA_TYPE };
  delete headers['content-length'];
  delete headers['transfer-encoding'];
  const own: object = { headers, body: body ?? undefined };
  if (error !== undefined) {
    // A streamed answer (JSON Lines) is always a 200: a refusal is answered whole, with its status.
    delete headers['trpc-accept'];
    markRefused(own, error);
  }
  return new Proxy(req, {
    has: (target, key) => Reflect.has(own, key) || Reflect.has(target, key),
    get: (target, key) => {
      if (Reflect.has(own, key)) return Reflect.get(own, key);
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Whether a Fetch `Request` can be built for `req` at all. A `Host` header with userinfo
 * (`Host: x@evil`) makes a URL that parses, but from which `new Request` refuses to build a
 * request: tRPC's Node adapter would answer that with a 500.
 *
 * @example
 * ```ts
 * if (!hasUsableUrl(req)) return answerBadUrl(res);
 * ```
 */
export function hasUsableUrl(req: IncomingMessage): boolean {
  try {
    const url = createURL(req);
    return url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/**
 * `req` refused with 400 `Invalid URL` (code `BAD_REQUEST`) for tRPC's Node adapter: a view with a
 * `Host` a URL can be built from, answered through the adapter's own error path.
 *
 * @example
 * ```ts
 * handle(hasUsableUrl(req) ? req : badUrlView(req), res);
 * ```
 */
export function badUrlView(req: IncomingMessage): IncomingMessage {
  return incomingView(req, '{}', new TRPCError({ code: 'BAD_REQUEST', message: 'Invalid URL' }), { host: 'localhost' });
}
