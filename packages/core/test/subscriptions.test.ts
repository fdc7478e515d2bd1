/**
 * Protected subscriptions through tRPC's own servers and `@trpc/client`'s links, on every
 * transport: the same readers refuse what they refuse for queries, and a stream ends with the
 * token that opened it. See docs/contract.md#subscriptions.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { record, serveStreams, streamClient, TRANSPORTS, type StreamServers, type Transport } from './support/streams.js';
import { streamsRouter, TokenTable, type StreamsRouter } from './support/streams-router.js';

// Streams run for a second or two each; a busy machine must not turn that into a timeout.
vi.setConfig({ testTimeout: 30_000 });

interface Tick {
  id: string;
  data: { n: number };
}

const RECHECK_INTERVAL = 150;
const table = new TokenTable();
const plain = streamsRouter(table);
const rechecked = streamsRouter(table, { recheckInterval: RECHECK_INTERVAL });
const urlAllowed = streamsRouter(table, { allowCredentialInUrl: true });
let servers: StreamServers;
let recheckServers: StreamServers;
let urlServers: StreamServers;

beforeAll(async () => {
  [servers, recheckServers, urlServers] = await Promise.all([
    serveStreams(plain.router),
    serveStreams(rechecked.router),
    serveStreams(urlAllowed.router),
  ]);
});
afterAll(async () => {
  await Promise.all([servers.close(), recheckServers.close(), urlServers.close()]);
});

/** Subscribes to `items` on `transport` with `authorization`, and records it. */
function subscribe(transport: Transport, authorization: string | undefined, on = servers, inUrl = false) {
  const { client, close } = streamClient<StreamsRouter>(on, transport, { authorization: () => authorization, inUrl });
  const recorded = record<Tick>((input, opts) => client.items.subscribe(input, opts), { everyMs: 10 });
  return { recorded, close: async () => (recorded.stop(), await close()) };
}

describe.each(TRANSPORTS)('a protected subscription over %s', (transport) => {
  it('refuses a call without a credential (401) and yields nothing', async () => {
    const { recorded, close } = subscribe(transport, undefined);
    const ended = await recorded.ended;
    await close();
    expect(ended).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, message: 'Not authenticated' });
    expect(recorded.events).toEqual([]);
  });

  it('refuses a token the verifier refuses (401 invalid_token) and yields nothing', async () => {
    const { recorded, close } = subscribe(transport, 'Bearer forged');
    const ended = await recorded.ended;
    await close();
    expect(ended).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, message: 'The access token is not active' });
    expect(recorded.events).toEqual([]);
  });

  it('refuses a token without the scope (403) and never yields', async () => {
    const token = table.issue(['me']);
    const { recorded, close } = subscribe(transport, `Bearer ${token}`);
    const ended = await recorded.ended;
    await close();
    expect(ended).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403, message: 'Not enough permissions' });
    expect(recorded.events).toEqual([]);
    expect(plain.opened.get(token)).toBeUndefined();
  });

  it('streams to a token with the scope', async () => {
    const token = table.issue(['items']);
    const { recorded, close } = subscribe(transport, `Bearer ${token}`);
    await recorded.received(3);
    await close();
    expect(plain.opened.get(token)).toBe(1);
    expect(recorded.events.slice(0, 3).map((event) => event.data.n)).toEqual([1, 2, 3]);
  });

  it('ends the stream when the token expires (401 "The access token expired", within a second of exp)', async () => {
    const lifetimeMs = 700;
    const token = table.issue(['items'], lifetimeMs);
    const expMs = Date.now() + lifetimeMs;
    const { recorded, close } = subscribe(transport, `Bearer ${token}`);
    const ended = await recorded.ended;
    const delivered = recorded.events.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    await close();
    expect(ended).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, message: 'The access token expired' });
    expect(ended!.at).toBeGreaterThanOrEqual(expMs - 20);
    expect(ended!.at - expMs).toBeLessThan(1000);
    expect(delivered).toBeGreaterThan(5);
    expect(recorded.events.length).toBe(delivered); // nothing after the end
  });

  it('ends the stream within the recheck interval once the token is revoked', async () => {
    const token = table.issue(['items']);
    const { recorded, close } = subscribe(transport, `Bearer ${token}`, recheckServers);
    await recorded.received(3);
    const revokedAt = Date.now();
    table.revoke(token);
    const ended = await recorded.ended;
    await close();
    expect(ended).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, message: 'The access token is not active' });
    expect(ended!.at - revokedAt).toBeLessThan(RECHECK_INTERVAL + 250);
  });

  it('ends the stream with 403 when a recheck finds the scope no longer granted', async () => {
    const token = table.issue(['items', 'me']);
    const { recorded, close } = subscribe(transport, `Bearer ${token}`, recheckServers);
    await recorded.received(3);
    table.regrant(token, ['me']);
    const ended = await recorded.ended;
    await close();
    expect(ended).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403, message: 'Not enough permissions' });
  });

  it('ends the stream with the fault when the verifier cannot answer a recheck (503), never keeping it unconfirmed', async () => {
    const token = table.issue(['items']);
    const { recorded, close } = subscribe(transport, `Bearer ${token}`, recheckServers);
    await recorded.received(3);
    table.unreachable.add(token);
    const ended = transport === 'ws' ? await recorded.ended : await Promise.race([recorded.ended, new Promise<null>((resolve) => setTimeout(() => resolve(null), 1500))]);
    const count = recorded.events.length;
    await close();
    if (transport === 'ws') {
      expect(ended).toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503 });
    } else {
      // tRPC's SSE client reconnects by itself after a 5xx, from the last event; the reconnection
      // is verified again and refused (503) until the verifier answers.
      expect(table.asked.get(token)).toBeGreaterThan(1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(recorded.events.length).toBe(count);
    }
  });

  it('keeps a stream whose token stays valid through several rechecks', async () => {
    const token = table.issue(['items']);
    const asked = () => table.asked.get(token) ?? 0;
    const { recorded, close } = subscribe(transport, `Bearer ${token}`, recheckServers);
    await recorded.received(1);
    const first = asked();
    await new Promise((resolve) => setTimeout(resolve, RECHECK_INTERVAL * 3 + 50));
    const count = recorded.events.length;
    await recorded.received(count + 2);
    await close();
    expect(asked() - first).toBeGreaterThanOrEqual(2);
  });
});

describe('a credential in the URL (httpSubscriptionLink connectionParams)', () => {
  it.each(['sse-standalone', 'sse-fetch'] as const)('is refused by default over %s (400 invalid_request), and nothing streams', async (transport) => {
    const token = table.issue(['items']);
    const { recorded, close } = subscribe(transport, `Bearer ${token}`, servers, true);
    const ended = await recorded.ended;
    await close();
    expect(ended).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, message: 'A credential in the URL is refused: send it in the Authorization header' });
    expect(recorded.events).toEqual([]);
    expect(plain.opened.get(token)).toBeUndefined();
    expect(table.asked.get(token)).toBeUndefined(); // refused before any verification
  });

  it.each(['sse-standalone', 'sse-fetch'] as const)('is read over %s by a reader created with allowCredentialInUrl', async (transport) => {
    const { recorded, close } = subscribe(transport, `Bearer ${table.issue(['items'])}`, urlServers, true);
    await recorded.received(2);
    await close();
    expect(recorded.events.map((event) => event.data.n).slice(0, 2)).toEqual([1, 2]);
  });
});

describe('a refusal over Server-Sent Events, as the wire carries it', () => {
  /** The head and the first events of a raw `GET` of the `items` subscription. */
  async function sseAnswer(base: string, query: string, authorization?: string) {
    const call = new AbortController();
    const response = await fetch(`${base}/items${query}`, { signal: call.signal, headers: authorization === undefined ? {} : { authorization } });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('event: serialized-error')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    call.abort();
    return { status: response.status, type: response.headers.get('content-type'), challenge: response.headers.get('www-authenticate'), text };
  }

  it.each(['standalone', 'fetch'] as const)('is a 200 stream without a challenge; its error event carries the status (%s)', async (adapter) => {
    const base = adapter === 'fetch' ? servers.fetch : servers.standalone;
    const inUrl = `?connectionParams=${encodeURIComponent(JSON.stringify({ authorization: `Bearer ${table.issue(['items'])}` }))}`;
    for (const [query, authorization, httpStatus] of [
      ['', undefined, 401],
      ['', 'Bearer forged', 401],
      ['', `Bearer ${table.issue(['me'])}`, 403],
      [inUrl, undefined, 400],
    ] as const) {
      const answer = await sseAnswer(base, query, authorization);
      expect(answer).toMatchObject({ status: 200, challenge: null });
      expect(answer.type).toContain('text/event-stream');
      expect(answer.text).toContain('event: serialized-error');
      expect(answer.text).toContain(`"httpStatus":${httpStatus}`);
    }
  });
});
