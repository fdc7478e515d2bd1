/**
 * A WebSocket connection's credential may come in two places: the connection params and the
 * upgrade request's `Authorization` header. Two different tokens there are read together, as a
 * repeated header is, so no principal is silently preferred and the call is refused; one token in
 * either place, or the same in both, is read as it is. See docs/contract.md#subscriptions.
 */
import { createTRPCClient, createWSClient, wsLink } from '@trpc/client';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { record, serveStreams, type StreamServers } from './support/streams.js';
import { streamsRouter, TokenTable, type StreamsRouter } from './support/streams-router.js';

vi.setConfig({ testTimeout: 30_000 });

const table = new TokenTable();
const { router, opened } = streamsRouter(table);
let servers: StreamServers;
beforeAll(async () => {
  servers = await serveStreams(router);
});
afterAll(() => servers.close());

/** A tRPC WebSocket client whose upgrade request carries `header`, and whose connection params carry `param`. */
function wsClient(header: string | undefined, param: string | undefined) {
  class HeaderWebSocket extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, header === undefined ? {} : { headers: { authorization: header } });
    }
  }
  const ws = createWSClient({
    url: servers.ws,
    WebSocket: HeaderWebSocket as never,
    connectionParams: () => (param === undefined ? {} : { authorization: param }),
    retryDelayMs: () => 20,
  });
  return { client: createTRPCClient<StreamsRouter>({ links: [wsLink({ client: ws } as never)] }), close: () => ws.close() };
}

describe('a WebSocket subscription with a token in the upgrade header and in the connection params', () => {
  it.each([
    ['the header alone', 'A', undefined, 'A'],
    ['the connection params alone', undefined, 'B', 'B'],
    ['the same token in both', 'A', 'A', 'A'],
  ] as const)('streams with %s', async (_case, header, param, streamsWith) => {
    const tokens = { A: table.issue(['items']), B: table.issue(['items']) };
    const bearer = (name: 'A' | 'B' | undefined) => (name === undefined ? undefined : `Bearer ${tokens[name]}`);
    const { client, close } = wsClient(bearer(header), bearer(param));
    const recorded = record<unknown>((input, opts) => client.items.subscribe(input, opts), { everyMs: 10 });
    await recorded.received(2);
    recorded.stop();
    await close();
    expect(opened.get(tokens[streamsWith])).toBe(1);
    expect(opened.get(tokens[streamsWith === 'A' ? 'B' : 'A'])).toBeUndefined();
  });

  it('refuses two different tokens (401), opening no stream for either principal', async () => {
    const a = table.issue(['items']);
    const b = table.issue(['items']);
    const { client, close } = wsClient(`Bearer ${a}`, `Bearer ${b}`);
    const recorded = record<unknown>((input, opts) => client.items.subscribe(input, opts), { everyMs: 10 });
    const ended = await recorded.ended;
    await close();
    expect(ended).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401 });
    expect(recorded.events).toEqual([]);
    expect(opened.get(a)).toBeUndefined();
    expect(opened.get(b)).toBeUndefined();
  });
});
