import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { MetadataAnswer } from '../resource/well-known.js';

/** Writes a whole answer (status, headers, body) on a Node response. */
export function writeAnswer(res: ServerResponse, answer: MetadataAnswer): void {
  res.statusCode = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  res.end(answer.body);
}

/**
 * How long, and how many more bytes of an unread body, a connection answered `Connection: close`
 * is still read before it is closed. Closed at once while the client still sends, it would be
 * reset, and the client could lose the answer it has not read yet.
 */
const LINGER_MS = 500;
const LINGER_BYTES = 1024 * 1024;

/**
 * Whether what is left of `req`'s body may be more than {@link LINGER_BYTES}: a body in chunks
 * (no length), or one declared longer. The rest of a shorter one is read to keep the connection,
 * as Node's server does: closing it would cost the client a new connection, and load tools that
 * send requests back to back on one connection lose track of their answers.
 */
const mayOutrun = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > LINGER_BYTES;

/**
 * Makes `res` answer with `Connection: close` when, as its head is written, `req`'s body has not
 * all arrived and what is left of it may be long (see {@link mayOutrun}): a body refused before it
 * was read (413, 415) or one no route reads. To keep the connection alive, Node's server would
 * read and discard the rest of the body after the answer, however long: one chunked POST pushed
 * gigabytes through after its 413. Here, once the answer is sent, at most {@link LINGER_BYTES}
 * more bytes are read, for at most {@link LINGER_MS}, and the connection is closed. HTTP/1 only
 * (an HTTP/2 stream is closed on its own). Returns what undoes it, for a request handed on to
 * another handler (`next`), whose body and connection are that handler's. See
 * `docs/contract.md#body-limits`.
 *
 * @example
 * ```ts
 * closeWhenBodyUnread(req, res);
 * handle(req, res);
 * ```
 */
export function closeWhenBodyUnread(req: IncomingMessage, res: ServerResponse): () => void {
  if (req.httpVersionMajor !== 1 || !mayOutrun(req)) return keepAsItIs;
  const writeHead = res.writeHead;
  // Every head goes through `writeHead`, an implicit one too (the first `write` or `end`).
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse['writeHead']>) {
    if (!req.complete && req.socket) {
      this.shouldKeepAlive = false;
      lingerBeforeClosing(req, req.socket);
    }
    return writeHead.apply(this, args);
  } as ServerResponse['writeHead'];
  return () => void (res.writeHead = writeHead);
}

/** What {@link closeWhenBodyUnread} returns when it changed nothing. */
const keepAsItIs = (): void => {};

/**
 * Node's server ends the socket of a `Connection: close` answer with `destroySoon` once the answer
 * is sent, which destroys it as soon as the answer is written out: with the client's body still
 * arriving, that is a reset, and the client may lose the answer. Here the socket is ended as well
 * (the client reads the answer to its end, then a FIN), then destroyed once the answer is written
 * out and the client's body has all arrived or {@link LINGER_BYTES} more of it have; or after
 * {@link LINGER_MS}, whatever happens.
 */
function lingerBeforeClosing(req: IncomingMessage, socket: Socket): void {
  let read = 0;
  let close: (() => void) | undefined;
  // Counted from the answer's head on: a body nobody reads by the end of the answer, Node's
  // server no longer hands to the request at all (it "dumps" it), and reads on unseen.
  const onData = (chunk: Buffer) => {
    read += chunk.byteLength;
    if (read > LINGER_BYTES) close?.();
  };
  req.on('data', onData);
  Object.defineProperty(socket, 'destroySoon', {
    configurable: true,
    value(this: Socket) {
      const destroy = () => {
        clearTimeout(timer);
        this.destroy();
      };
      const timer = setTimeout(destroy, LINGER_MS);
      timer.unref();
      close = () => {
        close = undefined;
        req.off('data', onData);
        req.off('end', onEnd);
        if (this.writableFinished) destroy();
        else this.once('finish', destroy);
      };
      const onEnd = () => close?.();
      req.once('end', onEnd);
      this.end();
      if (req.complete || read > LINGER_BYTES) close();
    },
  });
}
