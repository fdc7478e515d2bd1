/**
 * The `watch` of the demo's client reads a stream's refusal by its `data.oauth2`
 * (docs/contract.md#subscriptions), against the real server over WebSockets and Server-Sent
 * Events: a nonce asked for (`use_dpop_nonce`) goes in the next connection's proof, with no new
 * tokens; a token without the `items` scope is an error naming it; a refused DPoP proof is
 * reported as the server said it, not taken for an expired token and renewed; a token the server
 * keeps refusing (`invalid_token`) is renewed, then reported. The proofs a test spoils are the
 * stream's own (its socket's opening request, or its Server-Sent Events request), through
 * oauth4webapi's hook that edits a proof before it is signed.
 */
import * as oauth from 'oauth4webapi';
import { describe, expect, it, vi } from 'vitest';
import { demoClient } from '../../src/client/demo-client.js';
import { dpopHandle, newDPoPKey } from '../../src/client/dpop.js';
import { watchItems, type StreamTransport } from '../../src/client/item-stream.js';
import { passwordLogin, refreshAtTokenEndpoint } from '../../src/client/password-login.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();

/** Whether a proof is one of the stream's: a socket's opening request (`/trpc`) or the subscription's request. */
const streamProof = (payload: Record<string, unknown>) => typeof payload.htu === 'string' && /\/trpc(?:\/users\.watchItems)?$/.test(payload.htu);

/**
 * Alice logged in with `scope` and a new DPoP key whose stream proofs `spoil` may edit, and a
 * watch of hers on `transport` (for a count of items) that counts its refreshes.
 */
async function aliceWatching(transport: StreamTransport, scope: string, spoil: (payload: Record<string, unknown>) => void = () => {}) {
  const key = await newDPoPKey();
  const handle = await dpopHandle(key, {
    [oauth.modifyAssertion]: (_header, payload) => {
      if (streamProof(payload)) spoil(payload);
    },
  });
  const tokens = await passwordLogin(demo.url, { username: 'alice', password: 'wonderland', scope }, handle);
  let session = { accessToken: tokens.access_token, refreshToken: tokens.refresh_token!, expiresAt: Date.now() / 1000 + tokens.expires_in!, scope: tokens.scope ?? scope };
  const api = demoClient(demo.url, () => session.accessToken, handle);
  const existing = scope.includes('items') ? (await api.users.items.query()).length : 0;
  const out: string[] = [];
  let refreshes = 0;
  const watch = (count: number) =>
    watchItems({
      url: demo.url,
      transport,
      token: () => session,
      dpop: handle,
      refresh: async () => {
        refreshes += 1;
        const next = await refreshAtTokenEndpoint(demo.url, session.refreshToken, handle);
        session = { accessToken: next.access_token, refreshToken: next.refresh_token!, expiresAt: Date.now() / 1000 + next.expires_in!, scope: next.scope ?? scope };
        return session;
      },
      out: (line) => out.push(line),
      count,
    });
  return { api, existing, out, watch, refreshes: () => refreshes };
}

describe.each(['ws', 'sse'] as const)('watch over %s', (transport) => {
  it('answers use_dpop_nonce with the nonce in the next proof, and no new tokens', async () => {
    let stale = 1;
    // The stream's first proof carries a nonce the server never gave: it asks for its own.
    const alice = await aliceWatching(transport, 'me items', (payload) => {
      if (stale-- > 0) payload.nonce = 'a-nonce-the-server-never-gave';
    });
    const watching = alice.watch(alice.existing + 1);
    const item = await alice.api.users.addItem.mutate({ title: `after a nonce over ${transport}` });
    expect(await watching).toBe(alice.existing + 1);
    expect(stale).toBeLessThan(0);
    expect(alice.out.at(-1)).toBe(`item ${item.id}: after a nonce over ${transport}`);
    expect(alice.refreshes()).toBe(0);
  });

  it('names the scope the token lacks for the stream, with no new tokens', async () => {
    const alice = await aliceWatching(transport, 'me');
    await expect(alice.watch(1)).rejects.toThrow('The access token lacks the scope "items" the stream needs: log in again asking for it (--scope).');
    expect(alice.refreshes()).toBe(0);
  });

  it('reports a refused proof as the server said it, and does not renew the tokens for it', async () => {
    const alice = await aliceWatching(transport, 'me items', (payload) => {
      payload.htu = `${String(payload.htu)}/elsewhere`;
    });
    await expect(alice.watch(1)).rejects.toThrow(/^The DPoP proof htu does not match the request URL/);
    expect(alice.refreshes()).toBe(0);
  });
});

describe('watch with a token the server refuses', () => {
  it('renews it, and reports the fresh token refused as well', async () => {
    let refreshes = 0;
    const watching = watchItems({
      url: demo.url,
      transport: 'ws',
      token: () => ({ accessToken: 'not-a-token', expiresAt: null }),
      refresh: async () => {
        refreshes += 1;
        return { accessToken: 'not-a-token-either', expiresAt: null };
      },
      out: () => {},
      count: 1,
    });
    await expect(watching).rejects.toThrow('The server refuses the fresh access token: log in again.');
    expect(refreshes).toBe(1);
  });
});
