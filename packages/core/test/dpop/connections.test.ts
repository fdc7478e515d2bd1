/**
 * docs/contract.md#dpop: a proof is one HTTP request's. Over WebSockets the opening request
 * carries it, so it is checked (signature, htm/htu of the upgrade request, iat, ath, jti) once
 * per connection, and every call on the socket checks only its token and the token's binding to
 * that proof's key; an HTTP batch is one request with one proof too. The `jti` is recorded only
 * once the token and its binding are verified: proofs sent with junk tokens, or by another key
 * than the token's, take no room in the replay store, and a full store refuses new proofs
 * instead of forgetting one, so a captured proof never replays.
 */
import { createServer } from 'node:http';
import { createTRPCClient, createWSClient, wsLink } from '@trpc/client';
import { initTRPC } from '@trpc/server';
import { applyWSSHandler } from '@trpc/server/adapters/ws';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { WebSocket, WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal } from '../../src/index.js';
import { dpopNonces, dpopProofVerifier, memoryReplayStore, type DPoPProofVerifier, type DPoPReplayStore } from '../../src/dpop/index.js';
import { oauth2ErrorData } from '../../src/token-endpoint/index.js';
import { invalidTokenError } from '../../src/errors-entry.js';
import { boundAndOtherKey, signProof, type ProofKey } from '../support/dpop-proofs.js';
import { serveRouter, serveWebSockets, type RunningServer } from '../support/serve.js';

const ORIGIN = 'https://api.example.test';
/** What a refusal of a WebSocket connection's proof adds: the remedy is a new connection. */
const ON_A_NEW_CONNECTION = "; a WebSocket connection has its opening request's proof only: open a new connection with a new proof";

let key: ProofKey;
let other: ProofKey;
let jkt: string;
let otherJkt: string;
beforeAll(async () => {
  ({ key, other, jkt, otherJkt } = await boundAndOtherKey());
});

/** `bound` is bound to `key`, `bound-other` to `other`; anything else is refused. */
const verify = async (token: string): Promise<Principal> => {
  if (token === 'bound') return { scopes: ['me'], cnf: { jkt } };
  if (token === 'bound-other') return { scopes: ['me'], cnf: { jkt: otherJkt } };
  throw invalidTokenError('The access token is invalid');
};

function dpopRouter(proofs: DPoPProofVerifier) {
  const t = initTRPC.context<{ req?: unknown }>().create();
  const reader = oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, dpop: { mode: 'required', proofs } });
  return t.router({
    me: t.procedure.use(reader).query(({ ctx }) => ctx.token),
    ticks: t.procedure.use(reader).subscription(async function* () {
      yield 'tick';
    }),
  });
}

describe('DPoP over WebSockets (tRPC ws adapter)', () => {
  let time = Math.floor(Date.now() / 1000);
  const proofs = dpopProofVerifier({ algorithms: ['ES256'], now: () => time });
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const server = createServer();
    const wss = new WebSocketServer({ server, path: '/trpc' });
    const handler = applyWSSHandler({ wss, router: dpopRouter(proofs), createContext: ({ req, info }) => ({ req, info }) });
    server.listen(0, '127.0.0.1');
    const port = await listening(server);
    url = `ws://127.0.0.1:${port}/trpc`;
    close = async () => {
      handler.broadcastReconnectNotification();
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await closing(server);
    };
  });
  afterAll(() => close());

  /** A client whose socket opens with `proof` in its upgrade request, and `DPoP <token>` in its connection params. */
  const connect = (proof: string, token = 'bound') => {
    class DPoPWebSocket extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { dpop: proof } });
      }
    }
    const wsClient = createWSClient({ url, WebSocket: DPoPWebSocket as never, connectionParams: () => ({ authorization: `DPoP ${token}` }) });
    const client = createTRPCClient<ReturnType<typeof dpopRouter>>({ links: [wsLink({ client: wsClient })] });
    const subscribe = () =>
      new Promise<string>((resolve) => {
        const subscription = client.ticks.subscribe(undefined, {
          onData: (data) => {
            resolve(`data ${data}`);
            subscription.unsubscribe();
          },
          onError: (error) => resolve(`error ${error.message}`),
        });
      });
    const query = () => client.me.query().then((token) => `ok ${token}`, (error: Error) => `error ${error.message}`);
    return { subscribe, query, close: () => wsClient.close() };
  };
  const upgradeProof = (by: ProofKey = key, token = 'bound') => signProof(by, { method: 'GET', url: `${ORIGIN}/trpc`, accessToken: token, iat: time });

  it('accepts every call of a connection on its one proof: two subscriptions and a query, and calls after the proof would be too old', async () => {
    const connection = connect(await upgradeProof());
    try {
      expect(await connection.subscribe()).toBe('data tick');
      expect(await connection.subscribe()).toBe('data tick');
      expect(await connection.query()).toBe('ok bound');
      time += 120; // past maxAge (60 s): the proof was checked when the connection's first call came
      expect(await connection.query()).toBe('ok bound');
      expect(await connection.subscribe()).toBe('data tick');
    } finally {
      time -= 120;
      connection.close();
    }
  });

  it("refuses another connection opened with the same proof: the proof's jti was recorded by the first", async () => {
    const proof = await upgradeProof();
    const first = connect(proof);
    const second = connect(proof);
    try {
      expect(await first.query()).toBe('ok bound');
      expect(await second.query()).toBe(`error The DPoP proof was already used${ON_A_NEW_CONNECTION}`);
      expect(await second.subscribe()).toBe(`error The DPoP proof was already used${ON_A_NEW_CONNECTION}`);
      expect(await first.query()).toBe('ok bound');
    } finally {
      first.close();
      second.close();
    }
  });

  // The upgrade request is an HTTP GET: its proof names that request's URL, `https:` under the
  // origin, not the `wss:` URL the client opened the socket with.
  it.each(['wss', 'ws'])('refuses a connection whose proof names the %s: URL of the socket', async (scheme) => {
    const proof = await signProof(key, { method: 'GET', url: `${scheme}://api.example.test/trpc`, accessToken: 'bound', iat: time });
    const connection = connect(proof);
    try {
      expect(await connection.query()).toBe(`error The DPoP proof htu does not match the request URL${ON_A_NEW_CONNECTION}`);
    } finally {
      connection.close();
    }
  });

  it("still checks each call's token binding: a connection whose proof is by another key is refused on every call", async () => {
    const connection = connect(await upgradeProof(other));
    try {
      expect(await connection.query()).toBe(`error The DPoP proof key is not the key the access token is bound to${ON_A_NEW_CONNECTION}`);
      expect(await connection.subscribe()).toBe(`error The DPoP proof key is not the key the access token is bound to${ON_A_NEW_CONNECTION}`);
    } finally {
      connection.close();
    }
  });

  it('still checks the token on every call: a refused token is refused on every call, its proof never recorded', async () => {
    const proof = await upgradeProof(key, 'forged');
    const connection = connect(proof, 'forged');
    try {
      expect(await connection.query()).toBe('error The access token is invalid');
      expect(await connection.query()).toBe('error The access token is invalid');
    } finally {
      connection.close();
    }
  });
});

describe('a batch of calls in one HTTP request', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(dpopRouter(dpopProofVerifier({ algorithms: ['ES256'] })), 'standalone');
  });
  afterAll(() => server.close());

  it('is one request with one proof: every call of it is accepted, and the proof is refused afterwards', async () => {
    const path = '/trpc/me,me';
    const proof = await signProof(key, { method: 'GET', url: `${ORIGIN}${path}`, accessToken: 'bound' });
    const send = () => fetch(`${server.url}/me,me?batch=1&input=%7B%7D`, { headers: { authorization: 'DPoP bound', dpop: proof } });
    const answer = await send();
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { result: { data: string } }[]).map((call) => call.result.data)).toEqual(['bound', 'bound']);
    expect((await send()).status).toBe(401);
  });
});

// Two readers, each with a checker of its own, recording in one store (as one database would be
// shared): a request's proof is still one request's, whichever readers check it.
describe('readers whose checkers share a replay store', () => {
  const shared = memoryReplayStore();
  const t = initTRPC.context<{ req?: unknown }>().create();
  const readerOf = () => oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, dpop: { mode: 'required', proofs: dpopProofVerifier({ replay: shared }) } });
  const [first, second] = [readerOf(), readerOf()];
  let server: RunningServer;
  beforeAll(async () => {
    const router = t.router({
      a: t.procedure.use(first).query(({ ctx }) => ctx.token),
      b: t.procedure.use(second).query(({ ctx }) => ctx.token),
      both: t.procedure.use(first).use(second).query(({ ctx }) => ctx.token),
    });
    server = await serveRouter(router, 'standalone');
  });
  afterAll(() => server.close());

  const sendTwice = async (path: string, query = '') => {
    const proof = await signProof(key, { method: 'GET', url: `${ORIGIN}/trpc/${path}`, accessToken: 'bound' });
    const send = () => fetch(`${server.url}/${path}${query}`, { headers: { authorization: 'DPoP bound', dpop: proof } });
    const answer = await send();
    return { status: answer.status, body: await answer.text(), replayed: (await send()).status };
  };

  it('accept a batch whose calls go through either reader on its one proof, and refuse the proof afterwards', async () => {
    const { status, body, replayed } = await sendTwice('a,b', '?batch=1&input=%7B%7D');
    expect(status).toBe(200);
    expect((JSON.parse(body) as { result: { data: string } }[]).map((call) => call.result.data)).toEqual(['bound', 'bound']);
    expect(replayed).toBe(401);
  });

  it('accept a procedure behind both readers on its one proof, and refuse the proof afterwards', async () => {
    const { status, replayed } = await sendTwice('both');
    expect(status).toBe(200);
    expect(replayed).toBe(401);
  });
});

// Two checkers with different windows, one store: the batch's proof is recorded once, by the
// first reader, and must stay held for the longer window, or the batch replayed after the shorter
// one reaches the call behind the longer (the short checker refuses it as too old by then).
describe('readers whose checkers share a replay store, with different windows', () => {
  const start = 1_800_000_000;
  let time = start;
  const now = () => time;
  const shared = memoryReplayStore({ now });
  const t = initTRPC.context<{ req?: unknown }>().create();
  const readerOf = (maxAge: number) =>
    oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, dpop: { mode: 'required', proofs: dpopProofVerifier({ replay: shared, maxAge, now }) } });
  let server: RunningServer;
  beforeAll(async () => {
    const router = t.router({ short: t.procedure.use(readerOf(60)).query(() => 'short'), long: t.procedure.use(readerOf(300)).query(() => 'long') });
    server = await serveRouter(router, 'standalone');
  });
  afterAll(() => server.close());

  /** The status of each call of the batch `path`, sent with `proof`. */
  const batch = async (path: string, proof: string) => {
    const answer = await fetch(`${server.url}/${path}?batch=1&input=%7B%7D`, { headers: { authorization: 'DPoP bound', dpop: proof } });
    return ((await answer.json()) as ({ result: unknown } | { error: { data: { httpStatus: number } } })[]).map((call) => ('result' in call ? 200 : call.error.data.httpStatus));
  };

  it.each([
    ['short,long', 'the shorter window first'],
    ['long,short', 'the longer window first'],
  ])('refuse the batch %s replayed past the shorter window and within the longer (%s)', async (path) => {
    time = start;
    const proof = await signProof(key, { method: 'GET', url: `${ORIGIN}/trpc/${path}`, accessToken: 'bound', iat: start });
    expect(await batch(path, proof)).toEqual([200, 200]);
    time = start + 100;
    expect(await batch(path, proof)).toEqual([401, 401]);
    // Past both windows the proof is too old for either checker.
    time = start + 400;
    expect(await batch(path, proof)).toEqual([401, 401]);
  });
});

describe("a DPoP reader's replay store", () => {
  /** A reader whose replay store holds `maxEntries` proofs (`maxEntriesPerKey` of one key), and a way to call it. */
  const readerWith = (maxEntries: number, maxEntriesPerKey?: number, replay: DPoPReplayStore = memoryReplayStore({ maxEntries, ...(maxEntriesPerKey === undefined ? {} : { maxEntriesPerKey }) })) => {
    const t = initTRPC.context<{ req: Request }>().create();
    const proofs = dpopProofVerifier({ algorithms: ['ES256'], replay });
    const reader = oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, dpop: { mode: 'required', proofs } });
    const caller = t.router({ me: t.procedure.use(reader).query(({ ctx }) => ctx.token) }).createCaller;
    const url = `${ORIGIN}/me`;
    const proofOf = (by: ProofKey, token: string) => signProof(by, { method: 'GET', url, accessToken: token });
    const ask = (token: string, proof: string) =>
      caller({ req: new Request(url, { headers: { authorization: `DPoP ${token}`, dpop: proof } }) })
        .me()
        .then(
          (answer) => `ok ${answer}`,
          (error: Error) => error.message,
        );
    return { ask, proofOf };
  };

  it('takes no room for proofs sent with a token the verifier refuses, or by another key than the token is bound to', async () => {
    const { ask, proofOf } = readerWith(3);
    for (let i = 0; i < 10; i++) expect(await ask('forged', await proofOf(other, 'forged'))).toBe('The access token is invalid');
    for (let i = 0; i < 10; i++) expect(await ask('bound', await proofOf(other, 'bound'))).toBe('The DPoP proof key is not the key the access token is bound to');
    const victim = await proofOf(key, 'bound');
    expect(await ask('bound', victim)).toBe('ok bound');
    expect(await ask('bound', victim)).toBe('The DPoP proof was already used');
  });

  it('refuses new proofs once full of live ones, and a replay all the same', async () => {
    const { ask, proofOf } = readerWith(3, 3);
    const accepted = [await proofOf(key, 'bound'), await proofOf(key, 'bound'), await proofOf(key, 'bound')];
    for (const proof of accepted) expect(await ask('bound', proof)).toBe('ok bound');
    expect(await ask('bound', await proofOf(key, 'bound'))).toBe('The DPoP proof was already used');
    for (const proof of accepted) expect(await ask('bound', proof)).toBe('The DPoP proof was already used');
  });

  it("lets one client's bound token take no more than its key's share: another client's proofs are still accepted", async () => {
    const { ask, proofOf } = readerWith(20);
    // The default share is a tenth of the store: two proofs of one key.
    expect(await ask('bound', await proofOf(key, 'bound'))).toBe('ok bound');
    expect(await ask('bound', await proofOf(key, 'bound'))).toBe('ok bound');
    for (let i = 0; i < 10; i++) expect(await ask('bound', await proofOf(key, 'bound'))).toBe('The DPoP proof was already used');
    for (let i = 0; i < 2; i++) expect(await ask('bound-other', await proofOf(other, 'bound-other'))).toBe('ok bound-other');
  });

  it('never looks in the store before the token is verified: a request with a refused token touches it not at all', async () => {
    const memory = memoryReplayStore();
    const asked: string[] = [];
    const store: DPoPReplayStore = {
      use: (key, expiresAt, holder) => (asked.push('use'), memory.use(key, expiresAt, holder)),
      wouldRefuse: (key, holder) => (asked.push('wouldRefuse'), memory.wouldRefuse!(key, holder)),
    };
    const { ask, proofOf } = readerWith(10, undefined, store);
    for (let i = 0; i < 3; i++) expect(await ask('forged', await proofOf(key, 'forged'))).toBe('The access token is invalid');
    expect(asked).toEqual([]);
    const proof = await proofOf(key, 'bound');
    expect(await ask('bound', proof)).toBe('ok bound');
    expect(await ask('bound', proof)).toBe('The DPoP proof was already used');
    // A reader records after the token, and looks never: one `use` per request that got that far.
    expect(asked).toEqual(['use', 'use']);
  });
});

/**
 * docs/contract.md#dpop: a WebSocket connection has its opening request's proof only, so a proof
 * refused for a reason that passes (the replay store had no room for it then; a nonce) is what a
 * client answers with a new connection, and the refusal says so. The store's refusal does not
 * outlive its cause: a later call of the connection checks the proof anew, and is let through
 * once the store has room, while the proof is still young enough; a replay stays refused.
 */
describe('a WebSocket connection whose proof was refused for a reason that passes', () => {
  const start = 1_800_000_000;
  let time = start;
  const now = () => time;
  const nonces = dpopNonces({ secret: 'the-resource-server-nonce-secret-0123456789', step: 60, now });
  const t = initTRPC.context<{ req?: unknown; info?: unknown }>().create({
    errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }),
  });
  // One proof at a time: the store is full while another connection's proof is in its window.
  const full = dpopProofVerifier({ algorithms: ['ES256'], now, replay: memoryReplayStore({ maxEntries: 1, now }) });
  const withNonces = dpopProofVerifier({ algorithms: ['ES256'], now, nonces });
  // A store of its own with room to spare, beside the full one on the same connection.
  const roomy = dpopProofVerifier({ algorithms: ['ES256'], now, replay: memoryReplayStore({ now }) });
  const readerOf = (proofs: DPoPProofVerifier) => oauth2PasswordBearer({ tokenUrl: '/token', origin: ORIGIN, verify, dpop: { mode: 'required', proofs } });
  const router = t.router({
    full: t.procedure.use(readerOf(full)).query(() => 'ok'),
    nonce: t.procedure.use(readerOf(withNonces)).query(() => 'ok'),
    roomy: t.procedure.use(readerOf(roomy)).query(() => 'ok'),
    fullTicks: t.procedure.use(readerOf(full)).subscription(async function* () {
      yield 'tick';
    }),
  });
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ url, close } = await serveWebSockets(router));
  });
  afterAll(() => close());

  type Outcome = { ok: string } | { message: string; status: number | undefined; challenge: string | null | undefined; dpopNonce: string | null | undefined };
  const connect = (proof: string) => {
    class DPoPWebSocket extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers: { dpop: proof } });
      }
    }
    const wsClient = createWSClient({ url, WebSocket: DPoPWebSocket as never, connectionParams: () => ({ authorization: 'DPoP bound' }) });
    const client = createTRPCClient<typeof router>({ links: [wsLink({ client: wsClient })] });
    const outcome = (error: unknown): Outcome => {
      const data = (error as { data?: { httpStatus?: number; oauth2?: { challenge: string | null; dpopNonce: string | null } | null } }).data;
      return { message: (error as Error).message, status: data?.httpStatus, challenge: data?.oauth2?.challenge, dpopNonce: data?.oauth2?.dpopNonce };
    };
    const query = (procedure: 'full' | 'nonce' | 'roomy') => client[procedure].query().then((ok): Outcome => ({ ok }), outcome);
    const subscribe = () =>
      new Promise<Outcome>((resolve) => {
        const subscription = client.fullTicks.subscribe(undefined, {
          onData: (ok) => {
            resolve({ ok });
            subscription.unsubscribe();
          },
          onError: (error) => resolve(outcome(error)),
        });
      });
    return { query, subscribe, close: () => wsClient.close() };
  };
  const proofAt = (iat: number, nonce?: string) => signProof(key, { method: 'GET', url: `${ORIGIN}/trpc`, accessToken: 'bound', iat, ...(nonce === undefined ? {} : { nonce }) });

  it('a proof the full store refused is let through on a later call once the store has room; the refusal says to reconnect', async () => {
    time = start;
    const first = connect(await proofAt(start));
    // Within the first proof's window (it is held until start + 70), a proof made a little later.
    time = start + 60;
    const second = connect(await proofAt(start + 65));
    try {
      expect(await first.query('full')).toEqual({ ok: 'ok' });
      const refused = await second.query('full');
      expect(refused).toMatchObject({ message: `The DPoP proof was already used${ON_A_NEW_CONNECTION}`, status: 401 });
      expect((refused as { challenge: string }).challenge).toBe(`DPoP error="invalid_dpop_proof", error_description="The DPoP proof was already used${ON_A_NEW_CONNECTION}", algs="ES256"`);
      expect(await second.subscribe()).toMatchObject({ status: 401 });
      // The first proof's window ended: the store has room, and the second proof is 10 s old.
      time = start + 75;
      expect(await second.query('full')).toEqual({ ok: 'ok' });
      expect(await second.subscribe()).toEqual({ ok: 'tick' });
      // Recorded now: it is not recorded again, however long the connection lives.
      time = start + 500;
      expect(await second.query('full')).toEqual({ ok: 'ok' });
    } finally {
      time = start;
      first.close();
      second.close();
    }
  });

  it('a replayed proof stays refused on every later call, in its window and past it', async () => {
    time = start + 1000;
    const proof = await proofAt(time);
    const first = connect(proof);
    const replay = connect(proof);
    try {
      expect(await first.query('full')).toEqual({ ok: 'ok' });
      expect(await replay.query('full')).toMatchObject({ message: `The DPoP proof was already used${ON_A_NEW_CONNECTION}` });
      time += 30;
      expect(await replay.query('full')).toMatchObject({ message: `The DPoP proof was already used${ON_A_NEW_CONNECTION}` });
      // Past the window the store forgot the proof, and the proof is too old.
      time += 60;
      expect(await replay.query('full')).toMatchObject({ message: `The DPoP proof is too old${ON_A_NEW_CONNECTION}`, status: 401 });
      expect(await replay.subscribe()).toMatchObject({ status: 401 });
    } finally {
      time = start;
      first.close();
      replay.close();
    }
  });

  it("a proof without the nonce is refused on every call with the nonce current then, for the new connection's proof", async () => {
    time = start + 5000;
    const connection = connect(await proofAt(time));
    try {
      const first = await connection.query('nonce');
      expect(first).toMatchObject({ status: 401, dpopNonce: await nonces.current(), message: `Resource server requires nonce in DPoP proof${ON_A_NEW_CONNECTION}` });
      expect((first as { challenge: string }).challenge).toMatch(/^DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof; a WebSocket connection/);
      // A step on (the proof still within its 60 s), the refusal names the nonce current then.
      time += 45;
      const later = await connection.query('nonce');
      expect(later).toMatchObject({ status: 401, dpopNonce: await nonces.current() });
      expect((later as { dpopNonce: string }).dpopNonce).not.toBe((first as { dpopNonce: string }).dpopNonce);
      // A new connection whose proof carries it is let through.
      const renewed = connect(await proofAt(time, (later as { dpopNonce: string }).dpopNonce));
      try {
        expect(await renewed.query('nonce')).toEqual({ ok: 'ok' });
      } finally {
        renewed.close();
      }
      // Checked anew at every call, the old connection's proof is too old by now: a new connection still cures it.
      time += 60;
      expect(await connection.query('nonce')).toMatchObject({ status: 401, message: `The DPoP proof is too old${ON_A_NEW_CONNECTION}`, dpopNonce: null });
    } finally {
      time = start;
      connection.close();
    }
  });

  it("a proof the full store refused leaves the connection's proof as another store recorded it: that store's calls are still accepted", async () => {
    // Last of these tests: the full store holds this proof past the times the others set.
    time = start + 9000;
    const holder = connect(await proofAt(time));
    const second = connect(await proofAt(time + 1));
    try {
      expect(await holder.query('full')).toEqual({ ok: 'ok' });
      expect(await second.query('roomy')).toEqual({ ok: 'ok' });
      expect(await second.query('full')).toMatchObject({ status: 401 });
      // The roomy store recorded the proof on the first call: asked again, it would be a replay.
      expect(await second.query('roomy')).toEqual({ ok: 'ok' });
    } finally {
      time = start;
      holder.close();
      second.close();
    }
  });
});
