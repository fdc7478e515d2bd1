/**
 * Builds the Fetch `Request`s the policy hands on: with another body, as JSON, refused, or at
 * another URL, keeping method and signal.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { JSON_MEDIA_TYPE } from './media-type.js';
import { markRefused } from './refusal.js';

/**
 * `request` with another body (and, when given, other headers): same URL, method and signal.
 *
 * @example
 * ```ts
 * requestWithBody(request, limitedStream);
 * ```
 */
export function requestWithBody(request: Request, body: string | ReadableStream<Uint8Array> | null, headers = request.headers): Request {
  return rebuilt(request, request.url, body, headers);
}

/** A new `Request` at `url` with `request`'s method and signal. */
function rebuilt(request: Request, url: string, body: string | ReadableStream<Uint8Array> | null, headers: Headers): Request {
  // A stream body needs `duplex: 'half'` (Node's fetch); the DOM typings do not know it yet.
  const init: RequestInit & { duplex: 'half' } = { method: request.method, headers, body, signal: request.signal, duplex: 'half' };
  return new Request(url, init);
}

/**
 * `request` with `body` as its JSON body: same URL, method, signal and headers (the
 * `Authorization` header included), but for the content type and length.
 *
 * @example
 * ```ts
 * jsonRequest(request, JSON.stringify({ username: 'alice' }));
 * ```
 */
export function jsonRequest(request: Request, body: string | null): Request {
  const headers = new Headers(request.headers);
  headers.set('content-type', JSON_MEDIA_TYPE);
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  return requestWithBody(request, body, headers);
}

/**
 * A request standing for one whose body was refused: an empty JSON object as body, which every
 * handler reads without complaint, and `error` marked for `createContext` to throw. Without
 * `trpc-accept`, so tRPC answers it as one JSON response with the error's status, never as a
 * JSON Lines stream (always a 200).
 *
 * @example
 * ```ts
 * return refusedRequest(request, malformedBodyError('multipart/form-data'));
 * ```
 */
export function refusedRequest(request: Request, error: TRPCError): Request {
  const refused = jsonRequest(request, '{}');
  // A streamed answer (JSON Lines) is always a 200: a refusal is answered whole, with its status.
  refused.headers.delete('trpc-accept');
  return markRefused(refused, error);
}

/**
 * `request` at another URL: same method, headers, body (streamed on, not read) and signal.
 *
 * @example
 * ```ts
 * requestAt(request, 'http://127.0.0.1/users/me');
 * ```
 */
export function requestAt(request: Request, url: string): Request {
  return url === request.url ? request : rebuilt(request, url, request.body, request.headers);
}
