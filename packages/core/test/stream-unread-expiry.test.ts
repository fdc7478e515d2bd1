/**
 * docs/contract.md#subscriptions: a stream lives no longer than the principals the chain verified,
 * and `ctx.streamSignal` aborts once it ended, whichever way. That holds for a client that stopped
 * reading (its socket's buffers full, the stream waiting for it at a `yield`) when its token
 * expires or a recheck refuses it: the stream ends then (the signal aborts, the source is
 * returned), not once the client reads again, which may be never. SSE subscriptions and a streamed
 * query's result, over tRPC's standalone adapter on loopback.
 */
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { initTRPC } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { afterEach, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal } from '../src/index.js';
import { invalidTokenError } from '../src/errors-entry.js';

const tokens = new Map<string, Principal>();
const verify = async (token: string): Promise<Principal> => {
  const principal = tokens.get(token);
  if (principal === undefined) throw invalidTokenError('The access token is not active');
  return principal;
};

interface Seen { signal?: AbortSignal; sourceReturned: boolean; yielded: number }
const seen: Seen[] = [];

function routerWith(recheckInterval?: number) {
  const t = initTRPC.context<{ req: unknown; info: unknown }>().create();
  const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { feed: 'Feed' }, verify, ...(recheckInterval === undefined ? {} : { recheckInterval }) });
  const big = 'x'.repeat(64 * 1024);
  return t.router({
    feed: t.procedure.use(auth).use(auth.requireScopes('feed')).subscription(async function* ({ ctx }) {
      const record: Seen = { signal: ctx.streamSignal, sourceReturned: false, yielded: 0 };
      seen.push(record);
      try {
        // A source with events always ready (a backlog): only the consumer's pace limits it.
        while (!ctx.streamSignal!.aborted) {
          record.yielded += 1;
          yield { big };
        }
      } finally {
        record.sourceReturned = true;
      }
    }),
    // A query whose result streams (httpBatchStreamLink): it has no ctx.streamSignal, the source is watched.
    feedQuery: t.procedure.use(auth.requireScopes('feed')).query(({ signal }) => {
      const record: Seen = { signal: undefined, sourceReturned: false, yielded: 0 };
      seen.push(record);
      return {
        feed: (async function* () {
          try {
            while (!signal?.aborted) {
              record.yielded += 1;
              yield { big };
            }
          } finally {
            record.sourceReturned = true;
          }
        })(),
      };
    }),
  });
}

let server: Server | undefined;
let socket: Socket | undefined;
afterEach(async () => {
  socket?.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server?.closeAllConnections?.();
  seen.length = 0;
});

async function openUnread(recheckInterval: number | undefined, token: string, query = false) {
  const handler = createHTTPHandler({ router: routerWith(recheckInterval), basePath: '/trpc/', createContext: ({ req, info }) => ({ req, info }) });
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket!.once('connect', () => resolve()));
  const target = query ? `/trpc/feedQuery?batch=1&input=${encodeURIComponent('{}')}` : '/trpc/feed';
  const accept = query ? 'trpc-accept: application/jsonl' : 'Accept: text/event-stream';
  socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${accept}\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  // The client reads the first bytes, then never again.
  await new Promise<void>((resolve) => socket!.once('data', () => resolve()));
  socket.pause();
  // Let the server fill every buffer until the source waits on the consumer.
  let last = -1;
  while (seen[0] === undefined || seen[0].yielded !== last) {
    last = seen[0]?.yielded ?? -1;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Resolves once `done()` holds, polling; rejects after `ms` (a loaded machine gets time, never a pass). */
async function eventually(done: () => boolean, ms = 8_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('not within the time given');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('an SSE subscription whose client stopped reading', () => {
  it('ends when its token expires: ctx.streamSignal aborts and the source is returned', async () => {
    const expiresAt = Date.now() + 3_000;
    tokens.set('t1', { scopes: ['feed'], expiresAt: expiresAt / 1000 });
    await openUnread(undefined, 't1');
    // The stream waits for its client, the token still valid.
    expect(Date.now()).toBeLessThan(expiresAt);
    expect(seen[0]!.signal!.aborted).toBe(false);
    await eventually(() => seen[0]!.signal!.aborted && seen[0]!.sourceReturned);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt - 50);
  }, 20_000);

  it('ends when a recheck refuses the token (revoked): ctx.streamSignal aborts and the source is returned', async () => {
    tokens.set('t2', { scopes: ['feed'] });
    await openUnread(200, 't2');
    expect(seen[0]!.signal!.aborted).toBe(false);
    tokens.delete('t2');
    await eventually(() => seen[0]!.signal!.aborted && seen[0]!.sourceReturned);
  }, 20_000);

  it('a streamed query (httpBatchStreamLink) returns its source once its token expired, not when the client reads again', async () => {
    const expiresAt = Date.now() + 3_000;
    tokens.set('t3', { scopes: ['feed'], expiresAt: expiresAt / 1000 });
    await openUnread(undefined, 't3', true);
    expect(Date.now()).toBeLessThan(expiresAt);
    expect(seen[0]!.sourceReturned).toBe(false);
    await eventually(() => seen[0]!.sourceReturned);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt - 50);
  }, 20_000);
});
