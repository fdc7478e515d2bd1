import { createTRPCClient, createWSClient, httpSubscriptionLink, wsLink } from '@trpc/client';
import { initTRPC, tracked } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { applyWSSHandler } from '@trpc/server/adapters/ws';
import { EventSource } from 'eventsource'; // an EventSource that sends headers
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import { oauth2PasswordBearer, oauth2ResponseMeta } from '../../src/index.js';
import { jwtVerifier } from '@trpc-oauth2/jwt';

const issuer = process.env.ISSUER!;
const t = initTRPC.context<{ req: unknown; info: unknown }>().create({ isDev: false });
const auth = oauth2PasswordBearer({
  tokenUrl: `${issuer}/token`,
  scopes: { items: 'Read your items' },
  verify: jwtVerifier({ jwksUrl: `${issuer}/jwks`, algorithms: ['ES256'], issuer, audience: 'https://api.example' }),
});

export const appRouter = t.router({
  // 401 or 403 before the first event, as for a query; at the token's exp the stream ends with
  // 401 "The access token expired", and the client resumes with a fresh token from lastEventId.
  items: t.procedure
    .use(auth.withScopes('items'))
    .input(z.object({ lastEventId: z.string().nullish() }).optional())
    // ctx.streamSignal aborts when the stream ends, whichever way (the client left, the token expired).
    .subscription(async function* ({ ctx, input }) {
      for (let n = Number(input?.lastEventId ?? 0) + 1; !ctx.streamSignal?.aborted; n++) {
        yield tracked(String(n), { n });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }),
});

// `info` on ctx: over WebSockets the reader reads the connection params' `authorization`.
const createContext = ({ req, info }: { req: unknown; info: unknown }) => ({ req, info });
export const server = createHTTPServer({ router: appRouter, createContext, responseMeta: oauth2ResponseMeta() }); // SSE
applyWSSHandler({ wss: new WebSocketServer({ server }), router: appRouter, createContext }); // WebSockets, same port

// The clients send the token as a header or in the connection params, never in the URL (400).
export const overWebSockets = (url: string, token: () => string) =>
  createTRPCClient<typeof appRouter>({
    links: [
      wsLink({
        // Asked at every connection: a reconnect carries a fresh token. Lazy: closes when idle.
        client: createWSClient({ url, WebSocket: WebSocket as never, lazy: { enabled: true, closeMs: 500 }, connectionParams: () => ({ authorization: `Bearer ${token()}` }) }),
      }),
    ],
  });
export const overServerSentEvents = (url: string, token: () => string) =>
  createTRPCClient<typeof appRouter>({
    links: [
      httpSubscriptionLink({
        url,
        EventSource,
        eventSourceOptions: () => ({ fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${token()}` } }) }),
      }),
    ],
  });
