/**
 * docs/contract.md#dpop and #subscriptions: a subscription's rechecks hold the renewed principal
 * to the binding its opening call accepted. A verifier asked again (`fresh`: introspection, say)
 * may answer another `cnf` than it did when the stream opened; the stream has no other proof than
 * its opening request's, so a token now bound to another key, no longer bound while it came with
 * DPoP, or bound while it came as `Bearer` ends the stream with the refusal its opening call would
 * have got. Through tRPC's standalone and fetch adapters (SSE) and its ws adapter, on loopback.
 */
import { createTRPCClient, createWSClient, wsLink } from '@trpc/client';
import { initTRPC } from '@trpc/server';
import { WebSocket } from 'ws';
import { beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal } from '../../src/index.js';
import { boundAndOtherKey, signProof, type ProofKey } from '../support/dpop-proofs.js';
import { serveRouter, serveWebSockets } from '../support/serve.js';

const ORIGIN = 'https://api.example.test';
/** What a refusal on a WebSocket connection adds when only a new connection cures it. */
const ON_A_NEW_CONNECTION = "; a WebSocket connection has its opening request's proof only: open a new connection with a new proof";
/** How many rechecks a stream that must go on is read through. */
const RECHECKS = 3;

let key: ProofKey;
let jkt: string;
let otherJkt: string;
beforeAll(async () => {
  ({ key, jkt, otherJkt } = await boundAndOtherKey());
});

type Binding = 'key' | 'other key' | 'none' | 'certificate';
const cnfOf = (binding: Binding): Pick<Principal, 'cnf'> =>
  binding === 'key' ? { cnf: { jkt } } : binding === 'other key' ? { cnf: { jkt: otherJkt } } : binding === 'certificate' ? { cnf: { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' } } : {};

type Reader = 'dpop required' | 'dpop allowed' | 'plain';

/** A router whose subscription `feed` streams forever behind `reader`, and how many fresh verifications it saw. */
function feedRouter(reader: Reader, opening: Binding, renewed: Binding) {
  const state = { rechecks: 0 };
  const verify = async (_token: string, options?: { fresh?: boolean }): Promise<Principal> => {
    if (options?.fresh !== true) return { scopes: ['me'], ...cnfOf(opening) };
    state.rechecks++;
    return { scopes: ['me'], ...cnfOf(renewed) };
  };
  const dpop = reader === 'plain' ? {} : { dpop: { mode: reader === 'dpop required' ? ('required' as const) : ('allowed' as const) } };
  const auth = oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, recheckInterval: 30, ...dpop });
  const t = initTRPC.context<{ req?: unknown }>().create();
  const router = t.router({
    feed: t.procedure.use(auth).subscription(async function* () {
      for (let n = 0; ; n++) {
        yield n;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }),
  });
  return { router, state };
}

/** How a stream ended: the refusal's message, or `streams on` once it outlived `RECHECKS` rechecks. */
type Outcome = string;

/** Subscribes over SSE with raw `fetch`, sending the headers a DPoP client sends. */
async function overSse(adapter: 'standalone' | 'fetch', router: ReturnType<typeof feedRouter>['router'], state: { rechecks: number }, scheme: 'DPoP' | 'Bearer'): Promise<Outcome> {
  const server = await serveRouter(router, adapter);
  const abort = new AbortController();
  try {
    const headers: Record<string, string> = { authorization: `${scheme} tok`, accept: 'text/event-stream' };
    if (scheme === 'DPoP') headers.dpop = await signProof(key, { method: 'GET', url: `${ORIGIN}/trpc/feed`, accessToken: 'tok' });
    const response = await fetch(`${server.url}/feed`, { headers, signal: abort.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return `ended without an error: ${text.slice(-200)}`;
      text += value;
      const error = /event: serialized-error\ndata: (.*)\n/.exec(text);
      if (error !== null) return (JSON.parse(error[1]!) as { message: string }).message;
      if (state.rechecks >= RECHECKS) return 'streams on';
    }
  } finally {
    abort.abort();
    await server.close();
  }
}

/** Subscribes over a WebSocket: the proof a header of the upgrade request, the token in the connection params. */
async function overWs(router: ReturnType<typeof feedRouter>['router'], state: { rechecks: number }, scheme: 'DPoP' | 'Bearer'): Promise<Outcome> {
  const server = await serveWebSockets(router);
  const proof = scheme === 'DPoP' ? await signProof(key, { method: 'GET', url: `${ORIGIN}/trpc`, accessToken: 'tok' }) : undefined;
  class ProofWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, proof === undefined ? {} : { headers: { dpop: proof } });
    }
  }
  const wsClient = createWSClient({ url: server.url, WebSocket: ProofWebSocket as never, connectionParams: () => ({ authorization: `${scheme} tok` }) });
  const client = createTRPCClient<typeof router>({ links: [wsLink({ client: wsClient })] });
  try {
    return await new Promise<Outcome>((resolve) => {
      const subscription = client.feed.subscribe(undefined, {
        onData: () => {
          if (state.rechecks < RECHECKS) return;
          resolve('streams on');
          subscription.unsubscribe();
        },
        onError: (error) => resolve(error.message),
        onComplete: () => resolve('ended without an error'),
      });
    });
  } finally {
    await wsClient.close();
    await server.close();
  }
}

const TRANSPORTS = ['sse-standalone', 'sse-fetch', 'ws'] as const;

describe.each(TRANSPORTS)("a subscription's rechecks hold the token to its opening binding (%s)", (transport) => {
  const run = (reader: Reader, scheme: 'DPoP' | 'Bearer', opening: Binding, renewed: Binding) => {
    const { router, state } = feedRouter(reader, opening, renewed);
    return transport === 'ws' ? overWs(router, state, scheme) : overSse(transport === 'sse-fetch' ? 'fetch' : 'standalone', router, state, scheme);
  };

  // The last column: whether only a new connection cures it (a proof by the key the token is now
  // bound to), which a refusal on a WebSocket connection says.
  it.each([
    ['dpop required', 'DPoP', 'key', 'other key', 'The DPoP proof key is not the key the access token is bound to', true],
    ['dpop allowed', 'DPoP', 'key', 'other key', 'The DPoP proof key is not the key the access token is bound to', true],
    ['dpop required', 'DPoP', 'key', 'none', 'The access token is not DPoP-bound', false],
    ['dpop allowed', 'DPoP', 'key', 'certificate', 'The access token is bound to a key or certificate this resource cannot check', false],
    ['dpop allowed', 'Bearer', 'none', 'key', 'The access token is DPoP-bound: send it with the DPoP scheme and a proof', true],
    ['plain', 'Bearer', 'none', 'key', 'The access token is DPoP-bound, and DPoP is not accepted here', false],
    ['plain', 'Bearer', 'none', 'certificate', 'The access token is bound to a key or certificate this resource cannot check', false],
  ] as const)('%s reader, sent as %s, bound to %s when opened and to %s at a recheck: ends with "%s"', async (reader, scheme, opening, renewed, refusal, newConnection) => {
    const remedy = transport === 'ws' && newConnection ? ON_A_NEW_CONNECTION : '';
    expect(await run(reader, scheme, opening, renewed)).toBe(`${refusal}${remedy}`);
  });

  it.each([
    ['dpop required', 'DPoP', 'key'],
    ['dpop allowed', 'Bearer', 'none'],
    ['plain', 'Bearer', 'none'],
  ] as const)('%s reader, sent as %s, rechecked with the binding it opened with (%s): streams on', async (reader, scheme, binding) => {
    expect(await run(reader, scheme, binding, binding)).toBe('streams on');
  });
});
