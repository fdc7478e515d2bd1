// The READMEs' subscription example, compiled and served on both transports
// (docs/contract.md#subscriptions). `@trpc-oauth2/jwt` is resolved from the workspace, as for the
// quick start.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closing, serveKeySet, servingOnLoopback, type LoopbackKeySet } from '@trpc-oauth2/test-kit';
import { record } from './support/streams.js';

vi.setConfig({ testTimeout: 30_000 });

const readmes = {
  'the root README': readFileSync(new URL('../../../README.md', import.meta.url), 'utf8'),
  "the package's README": readFileSync(new URL('../README.md', import.meta.url), 'utf8'),
};
const example = readFileSync(new URL('./readme/subscriptions.ts', import.meta.url), 'utf8');

describe('the README subscription example', () => {
  it.each(Object.entries(readmes))('in %s is this tested file, word for word (but for the import path)', (_, readme) => {
    const published = example.replace("'../../src/index.js'", "'@trpc-oauth2/core'");
    expect(readme).toContain('```ts\n' + published + '```');
  });

  describe('streams on both transports, against a key set on loopback', () => {
    let keySet: LoopbackKeySet;
    let app: typeof import('./readme/subscriptions.js');
    let port: number;
    const token = (scope: string, expiresIn: string) => keySet.token({ scope }, { expiresIn });

    beforeAll(async () => {
      keySet = await serveKeySet();
      app = await import('./readme/subscriptions.js');
      port = Number(new URL(await servingOnLoopback(app.server)).port);
    });
    afterAll(async () => {
      await Promise.all([app && closing(app.server), keySet?.close()]);
    });

    const clients = {
      WebSockets: (jwt: string) => app.overWebSockets(`ws://127.0.0.1:${port}`, () => jwt),
      'Server-Sent Events': (jwt: string) => app.overServerSentEvents(`http://127.0.0.1:${port}`, () => jwt),
    };

    it.each(Object.keys(clients) as (keyof typeof clients)[])('over %s: streams to the scope, refuses without it, ends at exp', async (transport) => {
      const granted = clients[transport](await token('items', '1h'));
      const events = record<{ id: string; data: { n: number } }>((input, opts) => granted.items.subscribe(input, opts));
      await events.received(2);
      events.stop();
      expect(events.events.map((event) => event.data.n).slice(0, 2)).toEqual([1, 2]);

      const narrow = clients[transport](await token('me', '1h'));
      const refused = record((input, opts) => narrow.items.subscribe(input, opts));
      expect(await refused.ended).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
      expect(refused.events).toEqual([]);

      const shortLived = clients[transport](await token('items', '2s'));
      const expiring = record((input, opts) => shortLived.items.subscribe(input, opts));
      expect(await expiring.ended).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, message: 'The access token expired' });
      expect(expiring.events.length).toBeGreaterThan(0);
    });
  });
});
