import { createServer, type Server } from 'node:http';
import { serve } from '@hono/node-server';
import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { applyWSSHandler } from '@trpc/server/adapters/ws';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { WebSocketServer } from 'ws';
import { oauth2ResponseMeta } from '../../src/index.js';

/** A tRPC server on 127.0.0.1 at a port the OS picks; `close()` stops it. */
export interface RunningServer {
  readonly adapter: Adapter;
  /** Base URL of the tRPC endpoint, e.g. `http://127.0.0.1:41234/trpc`. */
  readonly url: string;
  close(): Promise<void>;
}

export type Adapter = 'fetch' | 'standalone';
export const ADAPTERS: readonly Adapter[] = ['fetch', 'standalone'];

/** What a server may be given besides its router. */
export interface ServeOptions {
  /** Largest request body in bytes; a larger one is refused with 413 `PAYLOAD_TOO_LARGE`. */
  maxBodySize?: number;
  /** tRPC's `onError`, e.g. to log failures as an application would. */
  onError?: (opts: { error: TRPCError }) => void;
  /** `undefined` serves the router with no `createContext` at all (the default one puts `req` on ctx). */
  createContext?: undefined;
}

/**
 * The fetch adapter has no body limit of its own (the host provides one); this one refuses a
 * body past `maxBodySize` as tRPC's node adapter does, by failing the stream with `PAYLOAD_TOO_LARGE`.
 */
const limitBody = (req: Request, maxBodySize: number | undefined) => {
  if (maxBodySize === undefined || req.body === null) return req;
  let size = 0;
  const body = req.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > maxBodySize) controller.error(new TRPCError({ code: 'PAYLOAD_TOO_LARGE' }));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Request(req, { body, duplex: 'half' } as RequestInit);
};

/** Serves `router` through tRPC's fetch adapter or its standalone (node http) adapter. */
export async function serveRouter(router: AnyTRPCRouter, adapter: Adapter, options: ServeOptions = {}): Promise<RunningServer> {
  const { maxBodySize, onError } = options;
  const createContext = 'createContext' in options ? undefined : ({ req }: { req: unknown }) => ({ req });
  let server: Server;
  if (adapter === 'standalone') {
    server = createHTTPServer({
      router,
      basePath: '/trpc/',
      ...(createContext === undefined ? {} : { createContext }),
      responseMeta: oauth2ResponseMeta(),
      ...(maxBodySize === undefined ? {} : { maxBodySize }),
      ...(onError === undefined ? {} : { onError }),
    });
    server.listen(0, '127.0.0.1');
  } else {
    server = serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (req) =>
        fetchRequestHandler({
          endpoint: '/trpc',
          req: limitBody(req, maxBodySize),
          router,
          ...(createContext === undefined ? {} : { createContext }),
          responseMeta: oauth2ResponseMeta(),
          ...(onError === undefined ? {} : { onError }),
        }),
    }) as Server;
  }
  const port = await listening(server);
  return { adapter, url: `http://127.0.0.1:${port}/trpc`, close: () => closing(server) };
}

/**
 * Serves `router` through tRPC's WebSocket adapter at `ws://127.0.0.1:<port>/trpc`, ctx the
 * connection's opening request and tRPC's `info`; `close()` ends every connection and stops it.
 */
export async function serveWebSockets(router: AnyTRPCRouter): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer();
  const wss = new WebSocketServer({ server, path: '/trpc' });
  applyWSSHandler({ wss, router, createContext: ({ req, info }) => ({ req, info }) });
  server.listen(0, '127.0.0.1');
  const url = `ws://127.0.0.1:${await listening(server)}/trpc`;
  return {
    url,
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await closing(server);
    },
  };
}

/** Starts one server per adapter. */
export async function serveOnEveryAdapter(router: AnyTRPCRouter, options: ServeOptions = {}): Promise<Record<Adapter, RunningServer>> {
  const [fetch, standalone] = await Promise.all(ADAPTERS.map((adapter) => serveRouter(router, adapter, options)));
  return { fetch: fetch!, standalone: standalone! };
}

/** What a tRPC call answered over HTTP. */
export interface CallResult {
  status: number;
  challenge: string | null;
  body: { result?: { data: unknown }; error?: { message: string; data: { code: string; httpStatus: number } } };
}

/** Calls a query with no input, sending `authorization` when given. */
export async function query(server: RunningServer, path: string, authorization?: string): Promise<CallResult> {
  const response = await fetch(`${server.url}/${path}`, {
    headers: authorization === undefined ? {} : { authorization },
  });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.json() };
}

/** Calls a mutation with a body of any kind. */
export async function mutate(server: RunningServer, path: string, init: RequestInit): Promise<CallResult> {
  const response = await fetch(`${server.url}/${path}`, { method: 'POST', ...init });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: await response.json() };
}
