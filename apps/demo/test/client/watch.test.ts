/**
 * The `watch` command against the real server, with access tokens that live two seconds: it
 * prints every item once, in order, across several token refreshes, over WebSockets and over
 * Server-Sent Events; and the server's subscription is protected as its queries are.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLI_CREDENTIALS, runCli } from '../../src/client/cli.js';
import { demoClient } from '../../src/client/demo-client.js';
import { dpopHandle } from '../../src/client/dpop.js';
import { streamClient, type StreamTransport } from '../../src/client/item-stream.js';
import type { ClientSession } from '../../src/client/session.js';
import { demoForThisFile, tempDataDir, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS * 2 });

const TOKEN_TTL_SECONDS = 2;
const demo = demoForThisFile({ accessTokenTtlSeconds: TOKEN_TTL_SECONDS });
let dir: string;
beforeAll(async () => {
  dir = await tempDataDir();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Alice, adding items through the typed client, her token refreshed as it goes. */
async function itemAdder() {
  const auth = demoClient(demo.url);
  let tokens = await auth.auth.token.mutate({ username: 'alice', password: 'wonderland', scope: 'me items', ...CLI_CREDENTIALS });
  let issuedAt = Date.now();
  const client = demoClient(demo.url, () => tokens.access_token);
  return async (title: string) => {
    if (Date.now() - issuedAt > 1000) {
      tokens = await auth.auth.token.mutate({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, ...CLI_CREDENTIALS });
      issuedAt = Date.now();
    }
    return client.users.addItem.mutate({ title });
  };
}

async function cli(args: string[], session: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (line) => out.push(line), err: (line) => err.push(line), env: { DEMO_URL: demo.url, DEMO_SESSION: join(dir, session) }, openBrowser: () => {} });
  return { code, out, err };
}

describe.each(['ws', 'sse'] as const)('watch over %s', (transport: StreamTransport) => {
  it('prints every item once and in order across token refreshes, resuming after the last one', async () => {
    const session = `watch-${transport}.json`;
    expect((await cli(['login', '--user', 'alice', '--password', 'wonderland'], session)).code).toBe(0);
    const first: ClientSession = JSON.parse(await readFile(join(dir, session), 'utf8'));
    // The CLI's tokens are DPoP-bound: the watch proves its key over either transport.
    expect(first.dpop).toBeDefined();
    const existing = await demoClient(demo.url, () => first.accessToken, await dpopHandle(first.dpop!)).users.items.query();

    const add = await itemAdder();
    const titles = Array.from({ length: 16 }, (_, i) => `${transport} item ${i + 1}`);
    const watching = cli(['watch', '--transport', transport, '--count', String(existing.length + titles.length)], session);
    // Items keep coming for about three token lifetimes, so the watch refreshes at least twice.
    const added = [];
    for (const title of titles) {
      added.push(await add(title));
      await new Promise((resolve) => setTimeout(resolve, 350));
    }
    const { code, out, err } = await watching;

    expect(err).toEqual([]);
    expect(code).toBe(0);
    const printed = out.filter((line) => line.startsWith('item '));
    expect(printed).toEqual([...existing, ...added].map((item) => `item ${item.id}: ${item.title}`));
    expect(out.filter((line) => line.startsWith('(new access token: resuming after item ')).length).toBeGreaterThanOrEqual(2);
    const last: ClientSession = JSON.parse(await readFile(join(dir, session), 'utf8'));
    expect(last.accessToken).not.toBe(first.accessToken);
  });
});

describe('the items subscription', () => {
  it.each(['ws', 'sse'] as const)('over %s refuses a bad token (401) and a token without the items scope (403), and yields nothing', async (transport) => {
    const bob = await demoClient(demo.url).auth.token.mutate({ username: 'bob', password: 'builder', ...CLI_CREDENTIALS });
    for (const [token, status] of [
      ['not-a-token', 401],
      [bob.access_token, 403],
    ] as const) {
      const { client, close } = streamClient(demo.url, transport, token);
      const events: unknown[] = [];
      const error = await new Promise<unknown>((resolve) => {
        client.users.watchItems.subscribe({}, { onData: (event) => events.push(event), onError: resolve, onComplete: () => resolve(null) });
      });
      await close();
      expect((error as { data?: { httpStatus?: number } }).data?.httpStatus).toBe(status);
      expect(events).toEqual([]);
    }
  });

  it('ends with "The access token expired" when the token does', async () => {
    const alice = await demoClient(demo.url).auth.token.mutate({ username: 'alice', password: 'wonderland', ...CLI_CREDENTIALS });
    const { client, close } = streamClient(demo.url, 'ws', alice.access_token);
    const started = Date.now();
    const error = await new Promise<unknown>((resolve) => {
      client.users.watchItems.subscribe({}, { onData: () => {}, onError: resolve, onComplete: () => resolve(null) });
    });
    await close();
    expect(error).toMatchObject({ message: 'The access token expired', data: { httpStatus: 401, oauth2: { code: 'ERR_INVALID_TOKEN' } } });
    expect(Date.now() - started).toBeLessThan((TOKEN_TTL_SECONDS + 1) * 1000);
  });
});
