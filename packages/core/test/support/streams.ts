/**
 * Subscriptions through the real thing: tRPC's standalone HTTP server with its WebSocket server
 * on the same port (`upgrade`), tRPC's fetch adapter, and `@trpc/client`'s `wsLink` and
 * `httpSubscriptionLink` talking to them over loopback.
 */
import { createServer, type Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createTRPCClient, createWSClient, httpSubscriptionLink, retryLink, wsLink, type TRPCClient, type TRPCClientError, type TRPCLink } from '@trpc/client';
import type { AnyTRPCRouter } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { getWSConnectionHandler } from '@trpc/server/adapters/ws';
import { EventSource } from 'eventsource';
import { WebSocket, WebSocketServer } from 'ws';
import { closing, listening } from '@trpc-oauth2/test-kit';

/** The ways a subscription reaches the server. */
export type Transport = 'ws' | 'sse-standalone' | 'sse-fetch';
export const TRANSPORTS: readonly Transport[] = ['ws', 'sse-standalone', 'sse-fetch'];

/** What every test server's `createContext` answers: the request and tRPC's `info`, as the contract asks. */
export const createContext = ({ req, info }: { req: unknown; info: unknown }) => ({ req, info });

/** The servers of one router: the standalone server (HTTP and WebSocket on one port) and the fetch adapter. */
export interface StreamServers {
  /** `http://127.0.0.1:port/trpc` of the standalone server; its WebSocket URL is `ws://127.0.0.1:port`. */
  readonly standalone: string;
  readonly ws: string;
  readonly fetch: string;
  /** Tells every WebSocket client to reconnect (tRPC's own notification). */
  broadcastReconnect(): void;
  close(): Promise<void>;
}

/**
 * Serves a router on every transport, on 127.0.0.1 at ports the OS picks. Given a function, each
 * request and each WebSocket connection is served by the router it returns then (a property test
 * swaps routers between cases).
 */
export async function serveStreams(router: AnyTRPCRouter | (() => AnyTRPCRouter)): Promise<StreamServers> {
  const routerNow = typeof router === 'function' ? router : () => router;
  const http = createServer((req, res) => createHTTPHandler({ router: routerNow(), basePath: '/trpc/', createContext })(req, res));
  const wss = new WebSocketServer({ server: http });
  wss.on('connection', (socket, req) => getWSConnectionHandler({ wss, router: routerNow(), createContext })(socket, req));
  http.listen(0, '127.0.0.1');
  const fetchServer = serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (req) => fetchRequestHandler({ endpoint: '/trpc', req, router: routerNow(), createContext }),
  }) as Server;
  const [port, fetchPort] = await Promise.all([listening(http), listening(fetchServer)]);
  return {
    standalone: `http://127.0.0.1:${port}/trpc`,
    ws: `ws://127.0.0.1:${port}`,
    fetch: `http://127.0.0.1:${fetchPort}/trpc`,
    broadcastReconnect() {
      // tRPC's own notification, as `applyWSSHandler(…).broadcastReconnectNotification()` sends it.
      for (const client of wss.clients) client.send(JSON.stringify({ id: null, method: 'reconnect' }));
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await Promise.all([closing(http), closing(fetchServer)]);
    },
  };
}

/** How a test client sends its credential. */
export interface ClientCredential {
  /** The `Authorization` value to send now (asked at every connection), or `undefined` for none. */
  authorization: () => string | undefined;
  /** SSE only: send it in the URL's `connectionParams` instead of the header. */
  inUrl?: boolean;
  /** tRPC's `retryLink` before the transport's link: whether to try a failed call again (it resumes from `lastEventId`). */
  retry?: (error: TRPCClientError<AnyTRPCRouter>) => boolean;
}

/** The links of a client: `retryLink` when asked for, then the transport's. */
const linksOf = (credential: ClientCredential, terminal: TRPCLink<any>): TRPCLink<any>[] =>
  credential.retry === undefined ? [terminal] : [retryLink({ retry: ({ error }) => credential.retry!(error) }), terminal];

/** A `@trpc/client` on one transport, and how to close it. */
export interface StreamClient<TRouter extends AnyTRPCRouter> {
  readonly client: TRPCClient<TRouter>;
  /** WebSocket only: the socket tRPC's client uses now. */
  socket(): WebSocket | null;
  close(): Promise<void>;
}

/** A client of `servers` on `transport`, sending `credential` as that transport carries it. */
export function streamClient<TRouter extends AnyTRPCRouter>(servers: StreamServers, transport: Transport, credential: ClientCredential): StreamClient<TRouter> {
  if (transport === 'ws') {
    const wsClient = createWSClient({
      url: servers.ws,
      WebSocket: WebSocket as never,
      // Asked again at every (re)connection: a fresh token goes with the next connection.
      connectionParams: () => {
        const authorization = credential.authorization();
        return authorization === undefined ? {} : { authorization };
      },
      retryDelayMs: () => 20,
    });
    return {
      client: createTRPCClient<TRouter>({ links: linksOf(credential, wsLink({ client: wsClient } as never)) }),
      socket: () => (wsClient.connection?.ws as WebSocket | undefined) ?? null,
      close: () => wsClient.close(),
    };
  }
  const url = transport === 'sse-fetch' ? servers.fetch : servers.standalone;
  const link = credential.inUrl
    ? httpSubscriptionLink({
        url,
        EventSource,
        connectionParams: () => {
          const authorization = credential.authorization();
          return authorization === undefined ? {} : { authorization };
        },
      })
    : httpSubscriptionLink({
        url,
        EventSource,
        // An EventSource that sends headers: the credential goes in `Authorization`, asked at every connection.
        eventSourceOptions: () => ({
          fetch: (input: string | URL | Request, init?: RequestInit) => {
            const authorization = credential.authorization();
            const headers = new Headers(init?.headers);
            if (authorization !== undefined) headers.set('authorization', authorization);
            return fetch(input, { ...init, headers });
          },
        }),
      });
  return { client: createTRPCClient<TRouter>({ links: linksOf(credential, link) }), socket: () => null, close: async () => undefined };
}

/** What a subscription delivered, and how it ended. */
export interface Recorded<TEvent> {
  readonly events: TEvent[];
  /** Settles once the subscription ends: with the error it ended with, or `null` when it completed. */
  readonly ended: Promise<RecordedError | null>;
  /** Resolves once `count` events arrived in all. */
  received(count: number): Promise<void>;
  stop(): void;
}

export interface RecordedError {
  readonly message: string;
  readonly code: string | undefined;
  readonly httpStatus: number | undefined;
  readonly at: number;
}

/** Subscribes through `subscribe` (e.g. `client.ticks.subscribe`) and records what arrives. */
export function record<TEvent>(
  subscribe: (input: any, opts: { onData(event: TEvent): void; onError(error: unknown): void; onComplete(): void; onStopped?(): void }) => { unsubscribe(): void },
  input?: unknown,
): Recorded<TEvent> {
  const events: TEvent[] = [];
  const waiters: { count: number; resolve(): void }[] = [];
  let settle!: (result: RecordedError | null) => void;
  const ended = new Promise<RecordedError | null>((resolve) => (settle = resolve));
  const subscription = subscribe(input, {
    onData(event) {
      events.push(event);
      for (const waiter of waiters.filter((w) => events.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    onError(error) {
      const data = (error as { data?: { code?: string; httpStatus?: number } }).data;
      settle({ message: (error as Error).message, code: data?.code, httpStatus: data?.httpStatus, at: Date.now() });
    },
    onComplete: () => settle(null),
    onStopped: () => settle(null),
  });
  return {
    events,
    ended,
    received: (count) => (events.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))),
    stop: () => subscription.unsubscribe(),
  };
}
