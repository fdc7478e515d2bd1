/**
 * Builds the Fetch `Request`s the policy hands on: with another body, as JSON, refused, or at
 * another URL, keeping method and signal.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { REQUEST_URL } from '@trpc-oauth2/core/protocol';
import { JSON_MEDIA_TYPE } from './media-type.js';
import { requestState } from '../utils/request-state.js';

/**
 * `request` with another body (and, when given, other headers or another URL): same method and
 * signal. Every `Request` with a body a handler hands its adapter is built here; like one
 * without a body, it gets its signal through {@link withSignal} (see {@link bodilessRequestAt}).
 *
 * @example
 * ```ts
 * requestWithBody(request, limitedStream);
 * ```
 */
export function requestWithBody(
  request: Request,
  body: string | ReadableStream<Uint8Array> | null,
  headers = request.headers,
  url = request.url,
): Request {
  // A stream body needs `duplex: 'half'` (Node's fetch); the DOM typings do not know it yet.
  const init: RequestInit & { duplex: 'half' } = { method: request.method, headers, body, duplex: 'half' };
  return withSignal(new Request(url, init), request.signal);
}

/**
 * `request` at another URL, when it has no body: same method, headers and signal. The signal is
 * set on the new request itself rather than passed to `new Request`, which would make Node's
 * `Request` follow it through a `WeakRef` and a `FinalizationRegistry`: the young-generation GC
 * treats those as strong, so every request would live until a full collection, the source of a
 * face's latency tail under load (BENCHMARKS.md#the-requests-signal).
 *
 * @example
 * ```ts
 * bodilessRequestAt(request, 'http://127.0.0.1/items'); // below the base path
 * ```
 */
export function bodilessRequestAt(request: Request, url: string): Request {
  return withSignal(new Request(url, { method: request.method, headers: request.headers }), request.signal);
}

/**
 * `request` with `signal` as its own (see {@link bodilessRequestAt} for why it is not passed to
 * `new Request`).
 *
 * @example
 * ```ts
 * withSignal(new Request(url, { method: 'GET', headers }), controller.signal);
 * ```
 */
export function withSignal(request: Request, signal: AbortSignal): Request {
  return Object.defineProperty(request, 'signal', { value: signal });
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
export function jsonRequest(request: Request, body: string | null, url = request.url): Request {
  const headers = new Headers(request.headers);
  headers.set('content-type', JSON_MEDIA_TYPE);
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  return requestWithBody(request, body, headers, url);
}

/**
 * A request standing for one whose body was refused: an empty JSON object as body, which every
 * handler reads without complaint, and `error` in its record for `createContext` to throw. Without
 * `trpc-accept`, so tRPC answers it as one JSON response with the error's status, never as a
 * JSON Lines stream (always a 200).
 *
 * @example
 * ```ts
 * return refusedRequest(request, malformedBodyError('multipart/form-data'));
 * ```
 */
export function refusedRequest(request: Request, error: TRPCError, url = request.url): Request {
  const refused = jsonRequest(request, '{}', url);
  // A streamed answer (JSON Lines) is always a 200: a refusal is answered whole, with its status.
  refused.headers.delete('trpc-accept');
  requestState(refused).refusal = error;
  return refused;
}

/**
 * `request` (at the path below the base path, where routes are matched) marked with the URL the
 * client used, which readers and DPoP proofs are checked against (`REQUEST_URL`).
 *
 * @example
 * ```ts
 * withClientUrl(requestAt(request, below), request.url);
 * ```
 */
export function withClientUrl(request: Request, clientUrl: string): Request {
  if (request.url !== clientUrl && !Object.hasOwn(request, REQUEST_URL)) Object.defineProperty(request, REQUEST_URL, { value: clientUrl });
  return request;
}
