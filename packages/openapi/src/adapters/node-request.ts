/**
 * Turns a Node request into what the handlers read (a Fetch `Request` within the body limit, or
 * a view with the body already read), and keeps a malformed URL a 400 rather than tRPC's 500.
 * @module
 */
import { IncomingMessage, type ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { mountedTargetOf } from '@trpc-oauth2/core/protocol';
import { createURL } from '@trpc/server/adapters/node-http';
import { ByteBuffer } from '../body/byte-buffer.js';
import { JSON_MEDIA_TYPE } from '../body/media-type.js';
import { withSignal } from '../body/requests.js';
import { requestPathname } from '../utils/base-path.js';
import { requestState } from '../utils/request-state.js';
import { bodyReadBeforeOf, withoutBodyFraming } from './body-read-before.js';

/**
 * What tRPC's `incomingMessageToRequest` builds, with the body limit of the policy, enforced by
 * the stream itself, which stops taking data once past it: a refused body is never buffered
 * whole. Its signal, which aborts when the client goes away, is set on the request rather than
 * followed by it (see `bodilessRequestAt`). An
 * `Authorization` or `Content-Type` header sent more than once reads as its values joined by
 * `", "`, as Fetch and the tRPC adapters read it (see {@link withRepeatsJoined}). `req` is left as
 * it is. `undefined` when the request's URL is unusable.
 *
 * @example
 * ```ts
 * const request = incomingRequest(req, res, bodyLimit(opts.maxBodySize));
 * ```
 */
export function incomingRequest(req: IncomingMessage, res: ServerResponse, maxBodySize: number | null): Request | undefined {
  const joined = withRepeatsJoined(req);
  // A target `//other.example/…` is a path (RFC 9112 §3.2.1): the host is the `Host` header's, as
  // the tRPC adapters read it. tRPC's `createURL` resolves it as a network-path reference, which
  // would make `other.example` the host of the URL the readers and verifiers see.
  const path = networkPathTarget(req.url);
  const target = path === undefined ? joined : viewOf(joined, { url: path });
  // A body a middleware read is handed on as it read it, decoded: its length and coding are gone.
  const read = (req as { body?: unknown }).body;
  const source = read === undefined || read instanceof IncomingMessage ? target : viewOf(target, { headers: withoutBodyFraming(target.headers) });
  try {
    return nodeRequest(source, res, req.method === 'GET' || req.method === 'HEAD' ? undefined : { maxBodySize });
  } catch {
    return undefined; // createURL refuses a URL it cannot parse
  }
}

/**
 * The URL the client used for `req`, given `url`, the Fetch URL built from `req.url`: that one,
 * but for the path and query when Express or Connect mounted the handler below a path
 * (`app.use('/api', handler)`), which they cut off `req.url` and keep in `req.originalUrl`. The
 * readers check a DPoP proof's `htu` against it (RFC 9449 §4.3, docs/contract.md#dpop); a target
 * `//other.example/…` stays a path, as {@link incomingRequest} reads one.
 *
 * @example
 * ```ts
 * clientUrlOfIncoming(req, 'http://api.example/items'); // 'http://api.example/api/items' under app.use('/api', …)
 * ```
 */
export function clientUrlOfIncoming(req: IncomingMessage, url: string): string {
  const mounted = mountedTargetOf(req);
  if (mounted === undefined || mounted === req.url) return url;
  try {
    const target = new URL(mounted, 'http://localhost');
    const client = new URL(url);
    client.pathname = target.pathname;
    client.search = target.search;
    return client.href;
  } catch {
    return url;
  }
}

/**
 * The pathname of the URL the client used for `req` (see {@link clientUrlOfIncoming}): `req.url`'s,
 * or, when Express or Connect mounted the handler below a path, `req.originalUrl`'s, the mount
 * path included; `undefined` when no URL is built from it. What the well-known metadata paths are
 * matched on: they are the origin's (RFC 9728 §3.1), and a handler mounted at `/api` is not asked
 * for them below it (`/api/.well-known/oauth-protected-resource` is not the metadata).
 *
 * @example
 * ```ts
 * clientPathnameOf(req); // '/api/.well-known/oauth-protected-resource' under app.use('/api', …)
 * ```
 */
export function clientPathnameOf(req: IncomingMessage): string | undefined {
  return requestPathname(mountedTargetOf(req) ?? req.url ?? '/');
}

/** The path and query of a target that starts with `//`, as the tRPC adapters route it; `undefined` for any other target. */
function networkPathTarget(target: string | undefined): string | undefined {
  if (target === undefined || !target.startsWith('//')) return undefined;
  try {
    const url = new URL(target, 'http://localhost');
    // One with credentials is left as it is: it is refused as an unusable URL.
    return url.username === '' && url.password === '' ? `${url.pathname}${url.search}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `req`, or, when it sent `Authorization` or `Content-Type` more than once, a view of it whose
 * `headers` hold each such header as its values joined by `", "`: what a Fetch `Headers` holds, so
 * that every face reads the request alike. Node's `req.headers` keeps only the first: `Bearer
 * good` then `Bearer evil` on the wire would read as the clean token `good`, and `application/json`
 * then `text/plain` as JSON on the Node faces but as a type no face reads (415) on the fetch faces.
 * `req` itself is left as it is.
 *
 * @example
 * ```ts
 * withRepeatsJoined(req).headers['content-type']; // 'application/json, text/plain'
 * ```
 */
export function withRepeatsJoined(req: IncomingMessage): IncomingMessage {
  const repeated = repeatedHeaders(req.rawHeaders);
  return repeated === undefined ? req : viewOf(req, { headers: { ...req.headers, ...repeated } });
}

/**
 * The `Authorization` and `Content-Type` headers sent more than once, each as its values in order
 * joined by `", "` (`undefined` when neither was). Read from the raw lines: Node's
 * `headersDistinct` would build an array for every header of every request to answer this, and
 * nothing is allocated here unless a header repeats.
 */
function repeatedHeaders(rawHeaders: readonly string[]): Record<string, string> | undefined {
  let authorization: string | undefined;
  let contentType: string | undefined;
  let joined: Record<string, string> | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') {
      if (authorization === undefined) authorization = rawHeaders[i + 1]!;
      else (joined ??= {}).authorization = `${joined.authorization ?? authorization}, ${rawHeaders[i + 1]!}`;
    } else if (name.length === 12 && name.toLowerCase() === 'content-type') {
      if (contentType === undefined) contentType = rawHeaders[i + 1]!;
      else (joined ??= {})['content-type'] = `${joined['content-type'] ?? contentType}, ${rawHeaders[i + 1]!}`;
    }
  }
  return joined;
}

/**
 * The Fetch `Request` of `req` (its body, when `body` is given, read within `maxBodySize`), its
 * signal aborting when the client goes away before the answer is sent, set on the request as
 * `bodilessRequestAt` explains.
 */
function nodeRequest(req: IncomingMessage, res: ServerResponse, body?: { maxBodySize: number | null }): Request {
  const controller = new AbortController();
  const onAbort = () => {
    res.off('close', onClose);
    req.off('aborted', onAbort);
    controller.abort();
  };
  const onClose = () => {
    if (res.writableEnded) req.off('aborted', onAbort);
    else onAbort();
  };
  res.once('close', onClose);
  req.once('aborted', onAbort);
  const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers: headersOf(req.headers) };
  if (body !== undefined) {
    init.body = bodyOf(req as IncomingMessage & { body?: unknown }, body.maxBodySize) ?? null;
    init.duplex = 'half';
  }
  return withSignal(new Request(createURL(req), init), controller.signal);
}

/**
 * The body of `req` as tRPC's Node adapters read it: a body a middleware already read
 * (`req.body`: as `bodyReadBeforeOf` reads it, text and bytes as they are, a urlencoded form's
 * fields as that form's text, anything else as JSON; another request's stream read in its place),
 * none when a middleware emptied the stream and said so with an undefined `req.body`, an error
 * when one emptied it without a word; else the stream itself, which stops at `maxBodySize` bytes
 * with tRPC's 413 (`PAYLOAD_TOO_LARGE`) and leaves the rest unread.
 */
function bodyOf(req: IncomingMessage & { body?: unknown }, maxBodySize: number | null): BodyInit | undefined {
  let source: IncomingMessage = req;
  if ('body' in req) {
    const parsed = req.body;
    if (parsed instanceof IncomingMessage) source = parsed;
    else if (parsed !== undefined) {
      // Held to its limit where the faces know the call (its endpoint's own, or a body the policy
      // already read and wrote as JSON): here it is only read (docs/contract.md#body-limits).
      const read = bodyReadBeforeOf(req, null);
      return read instanceof TRPCError ? failedStream(read) : (read as Uint8Array<ArrayBuffer> | string | undefined);
    } else if (req.readableEnded) return undefined;
  } else if (req.readableEnded) {
    return failedStream(
      new TRPCError({
        code: 'INTERNAL_SERVER_ERROR',
        message: 'The request body has already been read by another middleware. Assign the parsed body to `req.body` so tRPC can use it',
      }),
    );
  }
  return limitedStream(source, maxBodySize);
}

const failedStream = (error: TRPCError) => new ReadableStream<Uint8Array>({ start: (controller) => controller.error(error) });

/**
 * `source`'s bytes as a stream that errors with tRPC's 413 past `maxBodySize` and stops listening
 * then; cancelling it destroys `source`. The chunks Node emits are gathered into one buffer and
 * handed to a reader that asked once the current turn of the event loop is done: a body sent in
 * 1-byte chunks (which Node's parser emits one by one, a tick apart, however many came in one
 * read of the socket) is then about one chunk per read of the socket, not a stream chunk, a read
 * and a queue entry per byte.
 */
function limitedStream(source: IncomingMessage, maxBodySize: number | null): ReadableStream<Uint8Array> {
  let size = 0;
  let done = false;
  let ended = false;
  const gathered = new ByteBuffer(maxBodySize);
  /** The controller of a read waiting for bytes, and whether its answer is already scheduled. */
  let waiting: ReadableStreamDefaultController<Uint8Array> | undefined;
  let scheduled = false;
  let fail: ((error: TRPCError) => void) | undefined;
  const stop = () => {
    done = true;
    source.off('data', onData);
    source.off('end', onEnd);
  };
  /** Hands what was gathered to the read that waits, and closes the stream once the body has ended. */
  const answer = () => {
    scheduled = false;
    const controller = waiting;
    if (controller === undefined || (done && !ended)) return;
    waiting = undefined;
    if (gathered.length > 0) controller.enqueue(gathered.take());
    if (ended) controller.close();
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (maxBodySize !== null && size > maxBodySize) {
      stop();
      return fail?.(new TRPCError({ code: 'PAYLOAD_TOO_LARGE' }));
    }
    gathered.append(chunk);
    if (waiting !== undefined && !scheduled) {
      scheduled = true;
      setImmediate(answer);
    }
  };
  const onEnd = () => {
    if (done) return;
    stop();
    ended = true;
    answer();
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        fail = (error) => controller.error(error);
        source.on('data', onData);
        source.on('end', onEnd);
      },
      pull(controller) {
        waiting = controller;
        // Bytes gathered while no one asked, or the end: answered now. Else the next chunk answers.
        if (gathered.length > 0 || ended) answer();
      },
      cancel() {
        source.destroy();
      },
    },
    // Nothing read ahead into the stream's queue: the chunks wait in `gathered` until asked for.
    { highWaterMark: 0 },
  );
}

/**
 * Node's parsed headers as the headers of a Fetch `Request`, without HTTP/2 pseudo-headers, as
 * tRPC's adapter builds them: a plain record, which `new Request` copies once (a `Headers` built
 * first would be copied twice), or, when a header came as several values (an array), `Headers`
 * with each value appended.
 */
function headersOf(incoming: IncomingMessage['headers']): Record<string, string> | Headers {
  const record: Record<string, string> = {};
  for (const key in incoming) {
    const value = incoming[key];
    if (key.startsWith(':')) continue;
    if (typeof value === 'string') record[key] = value;
    else if (value !== undefined) return headerListOf(incoming);
  }
  return record;
}

function headerListOf(incoming: IncomingMessage['headers']): Headers {
  const headers = new Headers();
  for (const key in incoming) {
    const value = incoming[key];
    if (key.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(key, item);
    else if (value !== undefined) headers.append(key, value);
  }
  return headers;
}

/**
 * A view of `req`, whose body a middleware read, with that body as `read` (its text or bytes, as
 * `bodyReadBeforeOf` gives them) and without the headers that described the body as it came:
 * what the faces read in place of `req`. `req` itself is left as it is.
 *
 * @example
 * ```ts
 * decideBody(incomingRequest(bodyReadView(req, 'username=alice'), res, limit), policy, URLENCODED);
 * ```
 */
export function bodyReadView(req: IncomingMessage, read: string | Uint8Array): IncomingMessage {
  return viewOf(req, { headers: withoutBodyFraming(req.headers), body: read });
}

/**
 * `req` with `own` in place of its own properties of those names; `req` itself is left as it is
 * (a property defined on the view, its request record included, goes to `own`).
 */
function viewOf(req: IncomingMessage, own: object): IncomingMessage {
  return new Proxy(req, {
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(own, key, descriptor),
    has: (target, key) => Reflect.has(own, key) || Reflect.has(target, key),
    get: (target, key) => {
      if (Reflect.has(own, key)) return Reflect.get(own, key);
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
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
  const headers: IncomingMessage['headers'] = { ...req.headers, 'content-type': JSON_MEDIA_TYPE };
  delete headers['content-length'];
  delete headers['transfer-encoding'];
  if (error === undefined) return viewOf(req, { headers, body: body ?? undefined });
  // A streamed answer (JSON Lines) is always a 200: a refusal is answered whole, with its status.
  delete headers['trpc-accept'];
  const view = viewOf(req, { headers, body: body ?? undefined });
  requestState(view).refusal = error;
  return view;
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
