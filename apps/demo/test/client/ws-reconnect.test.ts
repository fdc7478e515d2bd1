/**
 * The WebSocket client of the demo with DPoP-bound tokens, across a reconnect: the server accepts
 * an opening request's proof for one connection only (docs/contract.md#dpop), and tRPC reconnects
 * by itself (docs/contract.md#subscriptions), so each connection must open with a proof of its
 * own. The connection is dropped under the client by a TCP proxy in front of the demo, the demo's
 * public URL, which the proofs name.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../soak/instances.js';
import { demoClient } from '../../src/client/demo-client.js';
import { dpopHandle, newDPoPKey } from '../../src/client/dpop.js';
import { streamClient, watchItems } from '../../src/client/item-stream.js';
import { passwordLogin, refreshAtTokenEndpoint } from '../../src/client/password-login.js';
import { SERVER_TIMEOUT_MS, startTestDemo, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

let demo: TestDemo | undefined;
let proxy: TcpProxy | undefined;
/** Where the client calls the demo: through the proxy, which is its public URL. */
let url: string;
beforeAll(async () => {
  const port = await freePort();
  proxy = await startTcpProxy(port);
  url = `http://127.0.0.1:${proxy.port}`;
  demo = await startTestDemo(undefined, { port, publicUrl: url });
}, SERVER_TIMEOUT_MS);
afterAll(async () => {
  await proxy?.close();
  await demo?.stop();
}, SERVER_TIMEOUT_MS);

/** Alice logged in with a new DPoP key, and the key's handle holding the API's nonce. */
async function boundLogin() {
  const handle = await dpopHandle(await newDPoPKey());
  const tokens = await passwordLogin(url, { username: 'alice', password: 'wonderland', scope: 'me items' }, handle);
  await demoClient(url, () => tokens.access_token, handle).users.me.query();
  return { handle, tokens };
}

/** Drops every connection through the proxy, and resolves once the client has opened a new one. */
async function dropAndAwaitReconnect(): Promise<void> {
  const before = proxy!.connections.length;
  proxy!.dropAll();
  await vi.waitFor(() => expect(proxy!.connections.length).toBeGreaterThan(before), { timeout: 5_000 });
}

describe('a DPoP-bound WebSocket client, after its connection dropped', () => {
  it('opens the new connection with a new proof: the next call runs', async () => {
    const { handle, tokens } = await boundLogin();
    const { client, close } = streamClient(url, 'ws', tokens.access_token, { handle });
    try {
      expect(await client.users.me.query()).toMatchObject({ username: 'alice' });
      await dropAndAwaitReconnect();
      expect(await client.users.me.query()).toMatchObject({ username: 'alice' });
    } finally {
      await close();
    }
  });

  it('keeps watching without a refresh: the resumed subscription is not refused', async () => {
    const { handle, tokens } = await boundLogin();
    let session = { accessToken: tokens.access_token, refreshToken: tokens.refresh_token!, expiresAt: Date.now() / 1000 + tokens.expires_in! };
    const api = demoClient(url, () => session.accessToken, handle);
    const existing = (await api.users.items.query()).length;
    const out: string[] = [];
    let refreshes = 0;
    const watching = watchItems({
      url,
      transport: 'ws',
      token: () => session,
      dpop: handle,
      // A proof refused on the new connection reads as an expired token: the watch would refresh.
      refresh: async () => {
        refreshes += 1;
        const next = await refreshAtTokenEndpoint(url, session.refreshToken, handle);
        session = { accessToken: next.access_token, refreshToken: next.refresh_token!, expiresAt: Date.now() / 1000 + next.expires_in! };
        return session;
      },
      out: (line) => out.push(line),
      count: existing + 2,
    });
    const first = await api.users.addItem.mutate({ title: 'before the drop' });
    await vi.waitFor(() => expect(out).toContain(`item ${first.id}: before the drop`), { timeout: 5_000 });
    await dropAndAwaitReconnect();
    const second = await api.users.addItem.mutate({ title: 'after the drop' });
    expect(await watching).toBe(existing + 2);
    expect(refreshes).toBe(0);
    expect(out.slice(-2)).toEqual([`item ${first.id}: before the drop`, `item ${second.id}: after the drop`]);
  });
});
