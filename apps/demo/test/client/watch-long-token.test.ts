/**
 * `watchItems` refreshes a quarter of the token's life before it expires. A token the server says
 * lives longer than a timer can wait (2^31 - 1 ms, about 24.8 days: an `expires_in` of a month)
 * must not make it refresh at once and again without end, hammering the server with refreshes
 * and reconnections: it waits as long as a timer can, then refreshes.
 */
import { describe, expect, it, vi } from 'vitest';
import { CLI_CREDENTIALS } from '../../src/client/cli.js';
import { demoClient } from '../../src/client/demo-client.js';
import { watchItems } from '../../src/client/item-stream.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS * 2 });

const demo = demoForThisFile();
const DAY = 86_400;

describe('watchItems with a token that lives a month', () => {
  for (const transport of ['ws', 'sse'] as const) {
    it(`does not refresh while the token is far from expiring (${transport})`, async () => {
      const { access_token } = await demoClient(demo.url).auth.token.mutate({ username: 'alice', password: 'wonderland', scope: 'me items', ...CLI_CREDENTIALS });
      const client = demoClient(demo.url, () => access_token);
      const existing = (await client.users.items.query()).length;
      // What a server answering `expires_in: 2592000` leaves in the session.
      const token = { accessToken: access_token, expiresAt: Date.now() / 1000 + 30 * DAY };
      let refreshes = 0;
      // Refreshing at all is the fault; a few of them stop the watch, so that it fails at once.
      const stop = new AbortController();
      const printed: string[] = [];
      const watched = await watchItems({
        url: demo.url,
        transport,
        token: () => token,
        refresh: async () => {
          refreshes += 1;
          if (refreshes >= 3) stop.abort();
          return token;
        },
        out: (line) => {
          printed.push(line);
          // Once the items there already are printed, one more is added: the watch ends with it.
          if (printed.length === existing) void client.users.addItem.mutate({ title: `month-long ${transport}` });
        },
        count: existing + 1,
        signal: stop.signal,
      });
      expect(refreshes).toBe(0);
      expect(watched).toBe(existing + 1);
      expect(printed.at(-1)).toMatch(new RegExp(`: month-long ${transport}$`));
      expect(printed.filter((line) => line.startsWith('(new access token'))).toEqual([]);
    });
  }
});
