/**
 * `users.watchItems` resumes after `lastEventId`, an item id. An item id is a PostgreSQL
 * `serial` (at most 2147483647): one past it names no item and is the client's mistake, a 400,
 * never a 500 from the database refusing the number.
 */
import { describe, expect, it, vi } from 'vitest';
import { CLI_CREDENTIALS } from '../../src/client/cli.js';
import { demoClient } from '../../src/client/demo-client.js';
import { streamClient } from '../../src/client/item-stream.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS * 2 });

const demo = demoForThisFile();

type Client = ReturnType<typeof streamClient>['client'];
type Outcome = { items: { id: number; title: string }[]; error?: { message: string; data?: { httpStatus?: number; code?: string } } };

/**
 * Subscribes after `lastEventId` and answers what came: the items sent, then the error if one
 * came; else, once `want` items came, those, or with `want` 0 whatever came within a second of
 * the start (over SSE the stream starts before an error comes).
 */
const watch = (client: Client, lastEventId: string, want = 0) =>
  new Promise<Outcome>((resolve) => {
    const items: Outcome['items'] = [];
    let settle: ReturnType<typeof setTimeout> | undefined;
    const subscription = client.users.watchItems.subscribe(
      { lastEventId },
      {
        onStarted: () => {
          if (want > 0) return;
          settle = setTimeout(() => {
            subscription.unsubscribe();
            resolve({ items });
          }, 1_000);
        },
        onData: (event) => {
          items.push(event.data);
          if (want === 0 || items.length < want) return;
          subscription.unsubscribe();
          resolve({ items });
        },
        onError: (error) => {
          clearTimeout(settle);
          subscription.unsubscribe();
          resolve({ items, error: error as never });
        },
      },
    );
  });

const token = async () =>
  (await demoClient(demo.url).auth.token.mutate({ username: 'alice', password: 'wonderland', scope: 'me items', ...CLI_CREDENTIALS })).access_token;

describe('an item stream resumed after an id', () => {
  for (const transport of ['ws', 'sse'] as const) {
    it(`past the largest item id is a 400, not a 500 (${transport})`, async () => {
      const stream = streamClient(demo.url, transport, await token());
      try {
        for (const lastEventId of ['2147483648', '999999999999999']) {
          const outcome = await watch(stream.client, lastEventId);
          expect(outcome).toMatchObject({ items: [], error: { data: { httpStatus: 400, code: 'BAD_REQUEST' } } });
        }
        // The largest id itself is an id: the stream opens, and no item comes after it.
        expect(await watch(stream.client, '2147483647')).toEqual({ items: [] });
        // And resuming after an ordinary id still sends what came after it.
        const { items, error } = await watch(stream.client, '1', 2);
        expect(error).toBeUndefined();
        expect(items.map((item) => item.id)).toEqual([2, 3]);
      } finally {
        await stream.close();
      }
    });
  }
});
