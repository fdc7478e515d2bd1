/**
 * Two demo servers on one PostgreSQL server, as behind one load balancer: a user's item stream
 * open on one of them sees the items the user adds through the other, as it sees those added
 * through its own server. The items live in the shared database; the notice that wakes a stream
 * must reach every server, not only the one that stored the item.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLI_CREDENTIALS } from '../../src/client/cli.js';
import { demoClient } from '../../src/client/demo-client.js';
import { streamClient, type StreamTransport } from '../../src/client/item-stream.js';
import { SERVER_TIMEOUT_MS, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';
import { controlPostgres } from '../store/postgres-control.js';
import { postgresBinForTests } from '../support/postgres.js';
import { startTwoDemos, type TwoDemos } from '../support/two-demos.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const bin = await postgresBinForTests('the item streams of two servers');

describe.skipIf(bin === undefined)('item streams on two servers sharing one PostgreSQL server', () => {
  let demos: TwoDemos;
  beforeAll(async () => {
    demos = await startTwoDemos(bin!);
  }, 2 * SERVER_TIMEOUT_MS);
  afterAll(() => demos?.stop(), SERVER_TIMEOUT_MS);

  /** Opens alice's item stream on `server` after her last item; `seen` collects the titles it delivers. */
  const watchOn = async (server: TestDemo, transport: StreamTransport, token: string) => {
    const existing = await demoClient(server.url, () => token).users.items.query();
    const last = existing.at(-1)?.id;
    const stream = streamClient(server.url, transport, token);
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      stream.client.users.watchItems.subscribe(
        { lastEventId: last === undefined ? null : String(last) },
        { onStarted: () => resolve(), onData: (event) => void seen.push(event.data.title), onError: reject },
      );
    });
    return { seen, close: () => stream.close() };
  };
  const aliceToken = async (server: TestDemo) =>
    (await demoClient(server.url).auth.token.mutate({ username: 'alice', password: 'wonderland', scope: 'me items', ...CLI_CREDENTIALS })).access_token;

  it.each(['ws', 'sse'] as const)('over %s, a stream on one server gets the items added through the other', async (transport: StreamTransport) => {
    const { a, b } = demos;
    const token = await aliceToken(a);
    const stream = await watchOn(a, transport, token);
    try {
      const title = `added on B over ${transport}`;
      await demoClient(b.url, () => token).users.addItem.mutate({ title });
      await vi.waitFor(() => expect(stream.seen).toEqual([title]), { timeout: 5_000, interval: 50 });
    } finally {
      await stream.close();
    }
  });

  it('a server whose listening connection was ended listens again, and its streams get what was added meanwhile', async () => {
    const { a, b } = demos;
    const token = await aliceToken(a);
    const stream = await watchOn(a, 'ws', token);
    try {
      const postgres = await controlPostgres(bin!, demos.databaseUrl);
      // Both servers' listening connections: an administrator, a failover.
      expect((await postgres.terminate(`query ILIKE 'LISTEN %'`)).length).toBe(2);
      await demoClient(b.url, () => token).users.addItem.mutate({ title: 'added while A was not listening' });
      await vi.waitFor(() => expect(stream.seen).toEqual(['added while A was not listening']), { timeout: 5_000, interval: 50 });
      await demoClient(b.url, () => token).users.addItem.mutate({ title: 'added once A listens again' });
      await vi.waitFor(() => expect(stream.seen).toEqual(['added while A was not listening', 'added once A listens again']), { timeout: 5_000, interval: 50 });
    } finally {
      await stream.close();
    }
  });
});
