/**
 * A user's open item streams are bounded over all connections: a WebSocket takes any number of
 * subscriptions, and each stream holds a watch on the feed and reads the database, so one token
 * could otherwise open them until the server runs out of memory. The stream past the bound is
 * refused with 429 before it opens; a stream that ends makes room again, whichever way it ended.
 */
import { describe, expect, it, vi } from 'vitest';
import { CLI_CREDENTIALS } from '../../src/client/cli.js';
import { demoClient } from '../../src/client/demo-client.js';
import { streamClient } from '../../src/client/item-stream.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS * 2 });

const demo = demoForThisFile();
const MAX_OPEN_STREAMS = 32;
/** How long a stream's end may take to be counted: each try opens up to 32 streams, slow on a busy machine (waitFor's default is 1 s). */
const WAIT = { timeout: 15_000, interval: 100 };

type Client = ReturnType<typeof streamClient>['client'];
type Opened = { started: true; unsubscribe: () => void } | { started: false; error: { message: string; data?: { httpStatus?: number; code?: string } } };

/** Subscribes to the items on `client`: started, or refused with its error. */
const open = (client: Client) =>
  new Promise<Opened>((resolve) => {
    const subscription = client.users.watchItems.subscribe(
      {},
      {
        onStarted: () => resolve({ started: true, unsubscribe: () => subscription.unsubscribe() }),
        onError: (error) => resolve({ started: false, error: error as never }),
      },
    );
  });

const token = async (username: string, password: string) =>
  (await demoClient(demo.url).auth.token.mutate({ username, password, scope: 'me items', ...CLI_CREDENTIALS })).access_token;

describe("a user's open item streams", () => {
  it(`are at most ${MAX_OPEN_STREAMS} over all of the user's WebSockets; one more is a 429, and one ending makes room`, async () => {
    const alice = await token('alice', 'wonderland');
    const sockets = [streamClient(demo.url, 'ws', alice), streamClient(demo.url, 'ws', alice)];
    try {
      const opened: Opened[] = [];
      for (let i = 0; i < MAX_OPEN_STREAMS; i++) opened.push(await open(sockets[i % 2]!.client));
      expect(opened.every((stream) => stream.started)).toBe(true);

      for (const socket of sockets) {
        const refused = await open(socket.client);
        expect(refused).toMatchObject({ started: false, error: { data: { httpStatus: 429, code: 'TOO_MANY_REQUESTS' } } });
        expect((refused as { error: { message: string } }).error.message).toBe(`At most ${MAX_OPEN_STREAMS} item streams may be open at once`);
      }
      (opened[0] as { unsubscribe: () => void }).unsubscribe();
      await vi.waitFor(async () => expect((await open(sockets[0]!.client)).started).toBe(true), WAIT);
    } finally {
      await Promise.all(sockets.map((socket) => socket.close()));
    }
    // Her sockets closed, every stream of hers ended: she has all of them again.
    await vi.waitFor(async () => {
      const again = streamClient(demo.url, 'ws', alice);
      try {
        const opened: Opened[] = [];
        for (let i = 0; i < MAX_OPEN_STREAMS; i++) opened.push(await open(again.client));
        expect(opened.every((stream) => stream.started)).toBe(true);
      } finally {
        await again.close();
      }
    }, WAIT);
  });
});
