/**
 * A connection changes hands safely: a client that reconnects with a fresh token (tRPC sends its
 * `connectionParams` again, and its subscriptions with `lastEventId`) is verified again, resumes
 * without losing or repeating an event, and a connection keeps no principal past the token that
 * proved it. See docs/contract.md#subscriptions.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { record, serveStreams, streamClient, type StreamServers } from './support/streams.js';
import { streamsRouter, TokenTable, type StreamsRouter } from './support/streams-router.js';

// Streams run for a second or two each; a busy machine must not turn that into a timeout.
vi.setConfig({ testTimeout: 30_000 });

interface Tick {
  id: string;
  data: { n: number };
}

const table = new TokenTable();
const { router, opened } = streamsRouter(table);
let servers: StreamServers;

beforeAll(async () => {
  servers = await serveStreams(router);
});
afterAll(() => servers.close());

/** The event numbers, which must be 1, 2, 3, … with no gap and no repeat. */
const numbers = (events: readonly Tick[]) => events.map((event) => event.data.n);
const consecutive = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

/** A WebSocket client whose credential the test swaps, subscribed to `items`. */
function wsSubscription(first: string) {
  let authorization = `Bearer ${first}`;
  const ws = streamClient<StreamsRouter>(servers, 'ws', { authorization: () => authorization });
  const recorded = record<Tick>((input, opts) => ws.client.items.subscribe(input, opts), { everyMs: 10 });
  return {
    ws,
    recorded,
    use: (token: string) => (authorization = `Bearer ${token}`),
    close: async () => (recorded.stop(), await ws.close()),
  };
}

describe('a WebSocket connection changing hands', () => {
  it('verifies the fresh token a reconnect sends and resumes from lastEventId, no event lost or repeated', async () => {
    const [a, b] = [table.issue(['items']), table.issue(['items'])];
    const { ws, recorded, use, close } = wsSubscription(a);
    await recorded.received(5);
    use(b);
    ws.socket()!.close(); // tRPC's client reconnects, sending connectionParams again
    await recorded.received(recorded.events.length + 10);
    await close();
    expect(numbers(recorded.events)).toEqual(consecutive(recorded.events.length));
    expect(opened.get(a)).toBe(1);
    expect(opened.get(b)).toBe(1); // the resumed stream was opened with the fresh token
  });

  it('moves streams to a fresh token when the server asks for a reconnect (the old socket overlaps), no event lost or repeated', async () => {
    const [a, b] = [table.issue(['items']), table.issue(['items'])];
    const { recorded, use, close } = wsSubscription(a);
    await recorded.received(5);
    use(b);
    servers.broadcastReconnect();
    await recorded.received(recorded.events.length + 10);
    await close();
    expect(numbers(recorded.events)).toEqual(consecutive(recorded.events.length));
    expect(opened.get(b)).toBe(1);
  });

  it('re-checks what the fresh token may see: one without the scope gets 403 on the reconnected stream', async () => {
    const [a, narrow] = [table.issue(['items']), table.issue(['me'])];
    const { ws, recorded, use, close } = wsSubscription(a);
    await recorded.received(3);
    use(narrow);
    ws.socket()!.close();
    const ended = await recorded.ended;
    await close();
    expect(ended).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
    expect(opened.get(narrow)).toBeUndefined();
  });

  it('keeps no principal past the token: once it expired, the open connection answers 401 to a query and to a new stream', async () => {
    const token = table.issue(['items', 'me'], 400);
    const { ws, recorded, close } = wsSubscription(token);
    expect(await ws.client.whoami.query()).toEqual({ scopes: ['items', 'me'] });
    const ended = await recorded.ended;
    expect(ended).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    await expect(ws.client.whoami.query()).rejects.toMatchObject({ data: { code: 'UNAUTHORIZED' } });
    const again = record<Tick>((input, opts) => ws.client.items.subscribe(input, opts), { everyMs: 10 });
    expect(await again.ended).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    expect(again.events).toEqual([]);
    await close();
  });

  it('resumes after the expiry error: refresh, reconnect with the fresh token, subscribe from lastEventId', async () => {
    const a = table.issue(['items'], 500);
    const { ws, recorded, use } = wsSubscription(a);
    expect(await recorded.ended).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    const before = recorded.events.length;
    const b = table.issue(['items']);
    use(b);
    ws.socket()!.close();
    const resumed = record<Tick>((input, opts) => ws.client.items.subscribe(input, opts), { everyMs: 10, lastEventId: recorded.events.at(-1)!.id });
    await resumed.received(10);
    resumed.stop();
    await ws.close();
    expect(before).toBeGreaterThan(5);
    expect(numbers([...recorded.events, ...resumed.events])).toEqual(consecutive(before + resumed.events.length));
  });
});

describe('a Server-Sent Events stream after its token expired', () => {
  it.each(['sse-standalone', 'sse-fetch'] as const)(
    'resumes over %s with a refreshed token through retryLink and lastEventId, no event lost or repeated',
    async (transport) => {
      let token = table.issue(['items'], 500);
      const refreshed: string[] = [];
      const sse = streamClient<StreamsRouter>(servers, transport, {
        authorization: () => `Bearer ${token}`,
        retry: (error) => {
          if (error.data?.code !== 'UNAUTHORIZED' || refreshed.length > 0) return false;
          token = table.issue(['items']);
          refreshed.push(token);
          return true;
        },
      });
      const recorded = record<Tick>((input, opts) => sse.client.items.subscribe(input, opts), { everyMs: 10 });
      await new Promise((resolve) => setTimeout(resolve, 700));
      await recorded.received(recorded.events.length + 10);
      recorded.stop();
      expect(refreshed).toHaveLength(1);
      expect(opened.get(refreshed[0]!)).toBe(1);
      expect(numbers(recorded.events)).toEqual(consecutive(recorded.events.length));
    },
  );
});
