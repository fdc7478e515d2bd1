/**
 * A Node request's body as a middleware before the handler left it (Express's or Connect's body
 * parsers, `app.use(express.json())` for the whole application), so that the Node faces read a
 * body no middleware took as if none had run, and one a middleware read as the body it was,
 * within the same limit. See docs/contract.md#body-limits.
 * @module
 */
import { IncomingMessage } from 'node:http';
import { TRPCError } from '@trpc/server';
import { bodyTooLargeError, malformedBodyError } from '../body/errors.js';
import { declaredTooLarge } from '../body/limit.js';
import { URLENCODED, mediaTypeOf } from '../body/media-type.js';

/**
 * What a middleware before the handler did with a request's body:
 * - `unread`: nothing (`req` has no `body`), or it skipped the body's type and said so with an
 *   undefined `req.body` over a stream left unread, as Express 5's parsers do: the face reads it
 *   with the body policy, as any other;
 * - `form`: it read a urlencoded form into its text fields (`express.urlencoded()`): the face
 *   reads that form again (see {@link formReadBefore});
 * - `bytes`: it left the body's bytes (`express.raw()`, a `Buffer`) or text (`express.text()`):
 *   the face reads them as the body they are, under the type the request declared;
 * - `parsed`: it left any other value (parsed JSON): the face reads its JSON text, as tRPC does;
 * - `taken`: it emptied the stream and left nothing, or left a stream of its own: tRPC's adapters
 *   take that as it is.
 */
export type BodyReadBefore = 'unread' | 'form' | 'bytes' | 'parsed' | 'taken';

/**
 * What a middleware before the handler did with `req`'s body (see {@link BodyReadBefore}).
 *
 * @example
 * ```ts
 * bodyReadBefore(req); // 'unread' behind express.json() for a urlencoded body
 * ```
 */
export function bodyReadBefore(req: IncomingMessage): BodyReadBefore {
  if (!('body' in req)) return 'unread';
  const body: unknown = (req as { body?: unknown }).body;
  if (body === undefined) return req.readableEnded ? 'taken' : 'unread';
  if (body instanceof IncomingMessage) return 'taken';
  if (typeof body === 'string' || ArrayBuffer.isView(body)) return 'bytes';
  return isRecord(body) && mediaTypeOf(req.headers['content-type']) === URLENCODED ? 'form' : 'parsed';
}

/**
 * The body a middleware before the handler read (see {@link BodyReadBefore}), as the faces read
 * it in place of the stream: a form's fields as that form's text, bytes as they are, text as
 * it is, any other value as its JSON text; `undefined` when the face reads the stream, or takes
 * `req` as it is (`unread`, `taken`). Held to `maxBodySize` (`null`: no limit) as a body read
 * from the stream is, whatever limit the middleware read it within: over it by its own size, or
 * by the `Content-Length` the request was sent with (what a parser dropped, JSON's whitespace,
 * was sent too), it is the 413 `ERR_BODY_TOO_LARGE` of a body refused unread. A form no longer
 * read as its fields is a 400 (see {@link formReadBefore}); a value with no JSON text, a 500: the
 * application's middleware left it. See docs/contract.md#body-limits.
 *
 * @example
 * ```ts
 * bodyReadBeforeOf(req, 2_000); // 413 for a 3 000-byte JSON body `express.json()` read
 * ```
 */
export function bodyReadBeforeOf(req: IncomingMessage, maxBodySize: number | null): string | Uint8Array | TRPCError | undefined {
  const before = bodyReadBefore(req);
  if (before === 'unread' || before === 'taken') return undefined;
  // The length it was sent with first: a body already over the limit is not written again to be measured.
  if (maxBodySize !== null && declaredTooLarge(req.headers['content-length'], maxBodySize)) return bodyTooLargeError(maxBodySize);
  const body: unknown = (req as { body?: unknown }).body;
  const read = before === 'form' ? formReadBefore(body as object) : before === 'bytes' ? bytesOf(body as string | ArrayBufferView) : jsonTextOf(body);
  if (read instanceof TRPCError || maxBodySize === null) return read;
  const size = typeof read === 'string' ? Buffer.byteLength(read) : read.byteLength;
  return size > maxBodySize ? bodyTooLargeError(maxBodySize) : read;
}

/** Text as it is; any view of bytes (a `Buffer`) as the bytes it covers. */
const bytesOf = (body: string | ArrayBufferView): string | Uint8Array =>
  typeof body === 'string' ? body : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);

/** A parsed value's JSON text, as tRPC's adapter writes it; one with none (a `BigInt`, a cycle) is the middleware's fault, not the client's. */
function jsonTextOf(body: unknown): string | TRPCError {
  try {
    return JSON.stringify(body) ?? '';
  } catch (cause) {
    return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause });
  }
}

/**
 * The urlencoded text of a form a middleware read into `fields` (`{ name: value }`, a name sent
 * more than once as its values in order, as Express's `urlencoded()` reads it), so that the form
 * is read as the client sent it: its repeated fields still repeated (RFC 6749 §3.2 refuses them
 * on a token endpoint), within the same limit. A 400 `ERR_MALFORMED_BODY` when a value is neither
 * text nor a list of texts (`a[b]=c` read as `{ a: { b: 'c' } }`): the names the client sent are
 * no longer there to read.
 *
 * @example
 * ```ts
 * formReadBefore({ username: 'alice', scope: ['a', 'b'] }); // 'username=alice&scope=a&scope=b'
 * ```
 */
export function formReadBefore(fields: object): string | TRPCError {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(name, value);
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) for (const item of value) form.append(name, item);
    else return malformedBodyError(URLENCODED);
  }
  return form.toString();
}

/**
 * `headers` without what described the body as it came (`Content-Length`, `Transfer-Encoding`,
 * `Content-Encoding`), for a body a middleware read: what is handed on is what it read, decoded.
 */
export function withoutBodyFraming(headers: IncomingMessage['headers']): IncomingMessage['headers'] {
  const rest = { ...headers };
  delete rest['content-length'];
  delete rest['transfer-encoding'];
  delete rest['content-encoding'];
  return rest;
}

const isRecord = (value: unknown): value is object =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
