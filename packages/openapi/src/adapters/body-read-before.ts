/**
 * A Node request's body as a middleware before the handler left it (Express's or Connect's body
 * parsers, `app.use(express.json())` for the whole application), so that the Node faces read a
 * body no middleware took as if none had run. See docs/contract.md#body-limits.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { TRPCError } from '@trpc/server';
import { malformedBodyError } from '../body/errors.js';
import { URLENCODED, mediaTypeOf } from '../body/media-type.js';

/**
 * What a middleware before the handler did with a request's body:
 * - `unread`: nothing (`req` has no `body`), or it skipped the body's type and said so with an
 *   undefined `req.body` over a stream left unread, as Express 5's parsers do: the face reads it
 *   with the body policy, as any other;
 * - `form`: it read a urlencoded form into its text fields (`express.urlencoded()`): the face
 *   reads that form again (see {@link formReadBefore});
 * - `taken`: it left anything else on `req.body` (parsed JSON, text, a stream of its own), or
 *   emptied the stream: tRPC's adapters take that as it is.
 */
export type BodyReadBefore = 'unread' | 'form' | 'taken';

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
  return isRecord(body) && mediaTypeOf(req.headers['content-type']) === URLENCODED ? 'form' : 'taken';
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
