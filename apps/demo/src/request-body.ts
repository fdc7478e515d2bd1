/**
 * Reading a request body up to a limit on the demo's own routes (the MCP endpoint, the login and
 * consent forms) without breaking the connection it came on.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What {@link readBody} answers for a body past its limit.
 *
 * @example
 * ```ts
 * if ((await readBody(req, 4096, true)) === BODY_TOO_LARGE) answer413();
 * ```
 */
export const BODY_TOO_LARGE = Symbol('too large');

/**
 * What {@link readBody} answers when the client went away before sending the whole body (a
 * client's doing, not a fault of the server's): no one is left to answer.
 *
 * @example
 * ```ts
 * if ((await readBody(req, 4096, true)) === CLIENT_GONE) return;
 * ```
 */
export const CLIENT_GONE = Symbol('the client went away');

/**
 * The body of `req`, read up to `maxBytes`: kept, or (`keep: false`) dropped as it comes. Past
 * the limit it is {@link BODY_TOO_LARGE}, and the rest is left unread, for Node's server to drop
 * once the answer is sent ({@link closeSoonIfUnread} bounds how long). The request is never
 * destroyed here: that would take the connection along, and the answer written next would be
 * lost to a reset, or never sent while the client waits on a kept-alive connection.
 *
 * @example
 * ```ts
 * const body = await readBody(req, 64 * 1024, true);
 * ```
 */
export function readBody(req: IncomingMessage, maxBytes: number, keep: boolean): Promise<Buffer | typeof BODY_TOO_LARGE | typeof CLIENT_GONE> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (result: Buffer | typeof BODY_TOO_LARGE | typeof CLIENT_GONE) => {
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('close', onGone);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) return settle(BODY_TOO_LARGE);
      if (keep) chunks.push(chunk);
    };
    const onEnd = () => settle(Buffer.concat(chunks));
    // Closed (or failed) before its end: the client went away.
    const onGone = () => settle(CLIENT_GONE);
    req.on('data', onData).once('end', onEnd).once('error', onGone).once('close', onGone);
  });
}

/** How long what is left of a refused body is still taken in once the answer is sent. */
const UNREAD_BODY_GRACE_MS = 1_000;

/**
 * After `res` is sent, gives the client {@link UNREAD_BODY_GRACE_MS} to finish sending the body
 * it was refused (Node's server drops it, and the connection goes on), then closes the
 * connection: a body without end is not read for ever. The client has read its answer by then.
 *
 * @example
 * ```ts
 * closeSoonIfUnread(req, res);
 * res.writeHead(413).end();
 * ```
 */
export function closeSoonIfUnread(req: IncomingMessage, res: ServerResponse): void {
  res.once('finish', () => {
    if (req.complete) return;
    const timer = setTimeout(() => void (req.complete || req.socket?.destroy()), UNREAD_BODY_GRACE_MS);
    timer.unref();
    req.once('end', () => clearTimeout(timer));
  });
}
