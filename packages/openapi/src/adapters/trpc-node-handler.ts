/**
 * What tRPC's standalone `createHTTPHandler` does with a Node request (its Connect middleware,
 * the procedure path below the base path, `resolveResponse`, the answer written back), on the
 * Fetch `Request` this package builds for the REST face and with an unstreamed answer written in
 * one piece. tRPC's adapter builds its request with the client's abort signal inside it, which Node
 * follows through a `WeakRef` that keeps every request alive past its first collection, and writes
 * even a whole JSON answer through a `WritableStream` in chunked encoding: together about half of
 * a bare query's CPU on that face (BENCHMARKS.md#the-standalone-face).
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError, getTRPCErrorFromUnknown, type AnyTRPCRouter } from '@trpc/server';
import { internal_exceptionHandler } from '@trpc/server/adapters/node-http';
import type { CreateHTTPHandlerOptions } from '@trpc/server/adapters/standalone';
import { resolveResponse, type TRPCRequestInfo } from '@trpc/server/http';
import { incomingRequest } from './node-request.js';
import { trpcPathBelow } from './token-endpoint-index.js';
import { requestPathname } from '../utils/base-path.js';

type CreateContext = (opts: object) => unknown;
type OnError = (opts: { req?: unknown }) => void;
type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

const passOn: Middleware = (_req, _res, next) => next();

/**
 * A Node request listener answering tRPC calls to `opts.router` as tRPC's standalone
 * `createHTTPHandler(opts)` answers them: `createContext` gets `{ req, res, info }` (with the
 * options, as tRPC spreads them), `onError` the Node request, `middleware` runs first and an error
 * it passes on is answered as tRPC answers it, `maxBodySize` limits a body read from the stream. A
 * status the application set before the answer (other than 200) stays.
 *
 * @example
 * ```ts
 * http.createServer(trpcNodeHandler({ router: appRouter, basePath: '/trpc/', createContext: ({ req }) => ({ req }) }));
 * ```
 */
export function trpcNodeHandler<$Router extends AnyTRPCRouter>(opts: CreateHTTPHandlerOptions<$Router>): (req: IncomingMessage, res: ServerResponse) => void {
  const basePath = opts.basePath ?? '/';
  const maxBodySize = opts.maxBodySize ?? null;
  const middleware = (opts.middleware as Middleware | undefined) ?? passOn;
  const createContext = opts.createContext as CreateContext | undefined;
  const onError = opts.onError as OnError | undefined;
  return (req, res) => {
    // The procedure path is cut from the target as it came, before `middleware` runs, as tRPC's
    // adapter cuts it: a middleware that rewrites `req.url` changes the query read, not the path.
    const pathname = requestPathname(req.url ?? '/');
    const path = pathname === undefined ? '' : trpcPathBelow(basePath, pathname);
    const fail = (cause: unknown) => internal_exceptionHandler(Object.assign({ req, res, path }, opts) as never)(cause);
    const answer = async (passed: unknown) => {
      const request = incomingRequest(req, res, maxBodySize);
      if (request === undefined || pathname === undefined) throw new TRPCError({ code: 'BAD_REQUEST', message: 'Invalid URL' });
      const response = await resolveResponse(
        Object.assign({}, opts, {
          req: request,
          path,
          error: passed ? getTRPCErrorFromUnknown(passed) : null,
          createContext: async (inner: { info: TRPCRequestInfo }) => createContext?.(Object.assign({}, opts, { req, res, path }, inner)),
          onError: onError && ((o: object) => onError(Object.assign({}, o, { req }))),
        }) as never,
      );
      await writeResponse(res, response, request.signal);
    };
    try {
      middleware(req, res, (passed) => void answer(passed).catch(fail));
    } catch (cause) {
      fail(cause);
    }
  };
}

/**
 * Whether `response` is tRPC's answer in one piece: JSON, not a JSON Lines batch (which tRPC marks
 * `Transfer-Encoding: chunked`) nor Server-Sent Events. Anything else is streamed as it comes, so
 * that no stream ever waits to be read whole.
 */
const isWhole = (response: Response): boolean =>
  response.headers.get('content-type') === 'application/json' && !response.headers.has('transfer-encoding');

/** Writes `response` on `res` as tRPC's Node adapter does, but an answer in one piece with one `end` (its length known, one write). */
async function writeResponse(res: ServerResponse, response: Response, signal: AbortSignal): Promise<void> {
  if (res.statusCode === 200) res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== 'set-cookie') res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  const body = response.body;
  try {
    if (body === null) return;
    if (isWhole(response)) return void res.end(await response.text());
    await streamBody(res, body, signal);
  } catch (error) {
    if (!res.headersSent) res.statusCode = 500;
    throw error;
  } finally {
    if (!res.writableEnded) res.end();
  }
}

/**
 * `body` written on `res` chunk by chunk, waiting for the socket to drain, each chunk flushed
 * through a compression middleware's `flush`; it stops when the client goes away (`signal`).
 */
async function streamBody(res: ServerResponse, body: ReadableStream<Uint8Array>, signal: AbortSignal): Promise<void> {
  const flushing = res as ServerResponse & { flush?: () => void };
  const sink = new WritableStream<Uint8Array>({
    async write(chunk) {
      if (!res.write(chunk)) await drained(res);
      flushing.flush?.();
    },
  });
  try {
    await body.pipeTo(sink, { signal });
  } catch (error) {
    // The client went away: the stream was cancelled, and there is no one left to answer.
    if (signal.aborted) return;
    throw error;
  }
}

/** Settles when `res` can take more (or is closed, or fails). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      res.off('drain', onDrain);
      res.off('close', onDrain);
      res.off('error', onError);
    };
    res.once('drain', onDrain);
    res.once('close', onDrain);
    res.once('error', onError);
  });
}
