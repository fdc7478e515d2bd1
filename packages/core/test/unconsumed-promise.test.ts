/**
 * A promise in a verified call's result (`{ later: promise }`, or inside an event of a stream) is
 * guarded by the call's credentials only once somebody consumes it: tRPC reads it when it streams
 * the answer (`httpBatchStreamLink`), a `createCaller` caller when it awaits it. One tRPC never
 * reads (an answer it does not stream: `httpBatchLink`, `httpLink`; an event it writes as `{}`)
 * starts nothing: no expiry timer, no recheck, however long the application's promise stays
 * pending. A consumed one ends with the credentials as before. See docs/contract.md#subscriptions.
 */
import { createTRPCClient, httpBatchLink, httpBatchStreamLink, httpLink } from '@trpc/client';
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getOAuth2Error, oauth2PasswordBearer } from '../src/index.js';
import { ADAPTERS, serveRouter, type Adapter, type RunningServer } from './support/serve.js';
import { record, serveStreams, streamClient, TRANSPORTS, type StreamServers } from './support/streams.js';
import { TokenTable } from './support/streams-router.js';

vi.setConfig({ testTimeout: 30_000 });

const RECHECK_INTERVAL = 20;
/** Long enough for a recheck loop left running to ask the verifier several times. */
const SEVERAL_INTERVALS = 10 * RECHECK_INTERVAL;

const t = initTRPC.context<{ req?: unknown; info?: unknown; headers?: Record<string, string> }>().create();
const table = new TokenTable();
const rechecking = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { items: 'Read items' }, verify: table.verify, recheckInterval: RECHECK_INTERVAL });

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** The application's promise that never settles. */
const never = new Promise<never>(() => undefined);
/** A stream that would wait forever, were it iterated. */
async function* idle(): AsyncGenerator<never> {
  await never;
}

const router = t.router({
  pending: t.procedure.use(rechecking.withScopes('items')).query(() => ({ now: 1, later: never })),
  /** Three events, each carrying a promise that never settles and a stream nobody iterates, then done. */
  events: t.procedure.use(rechecking.withScopes('items')).subscription(async function* () {
    for (let n = 1; n <= 3; n++) yield { n, later: never, more: idle() };
  }),
  failing: t.procedure.use(rechecking.withScopes('items')).query(() => ({ now: 1, failed: Promise.reject(new Error('the application failed')) })),
});
type AppRouter = typeof router;

const asked = (token: string) => table.asked.get(token) ?? 0;

const failure = (error: unknown) => {
  const data = (error as { data?: { code?: string; httpStatus?: number }; code?: string }).data;
  return { message: (error as Error).message, code: data?.code ?? (error as { code?: string }).code, httpStatus: data?.httpStatus ?? getOAuth2Error(error)?.status };
};

/** Whether `promise` rejected, and with what, once it settles. */
const settle = (promise: PromiseLike<unknown>) =>
  Promise.resolve(promise).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

/** Collects the unhandled rejections reported while `run` runs (and `after` ms past it). */
async function unhandledDuring(run: () => Promise<void>, after = 100): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const listener = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', listener);
  try {
    await run();
    await sleep(after);
  } finally {
    process.off('unhandledRejection', listener);
  }
  return unhandled;
}

describe.each(ADAPTERS)('a promise in an answer tRPC does not stream, through the %s adapter', (adapter: Adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, adapter);
  });
  afterAll(() => server.close());

  const links = { httpBatchLink, httpLink };
  it.each(Object.keys(links) as (keyof typeof links)[])('starts no recheck through %s: the verifier is asked once, to open the call', async (name) => {
    const token = table.issue(['items']);
    const client = createTRPCClient<AppRouter>({ links: [links[name]({ url: server.url, headers: { authorization: `Bearer ${token}` } })] });
    // tRPC refuses a result holding a promise to a client that does not stream, and never reads it.
    await expect(client.pending.query()).rejects.toMatchObject({ data: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    await sleep(SEVERAL_INTERVALS);
    expect(asked(token)).toBe(1);
  });

  it("reports no unhandled rejection for the application's promise tRPC never reads", async () => {
    const client = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: server.url, headers: { authorization: `Bearer ${table.issue(['items'])}` } })] });
    const unhandled = await unhandledDuring(async () => {
      await expect(client.failing.query()).rejects.toMatchObject({ data: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    });
    expect(unhandled).toEqual([]);
  });

  it('still ends a promise tRPC streams (httpBatchStreamLink) when a recheck refuses the token', async () => {
    const token = table.issue(['items']);
    const client = createTRPCClient<AppRouter>({ links: [httpBatchStreamLink({ url: server.url, headers: { authorization: `Bearer ${token}` } })] });
    const result = await client.pending.query();
    expect(result.now).toBe(1);
    const ending = settle(result.later);
    await vi.waitFor(() => expect(asked(token)).toBeGreaterThan(1));
    table.revoke(token);
    const { error } = (await ending) as { error: unknown };
    expect(failure(error)).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token is not active' });
  });
});

describe.each(TRANSPORTS)('a promise inside an event of a subscription over %s', (transport) => {
  let servers: StreamServers;
  beforeAll(async () => {
    servers = await serveStreams(router);
  });
  afterAll(() => servers.close());

  it('starts no recheck: once the subscription ended, the verifier is not asked again', async () => {
    const token = table.issue(['items']);
    const { client, close } = streamClient<AppRouter>(servers, transport, { authorization: () => `Bearer ${token}` });
    const recorded = record<{ n: number; later: unknown; more: unknown }>((input, opts) => client.events.subscribe(input, opts));
    try {
      expect(await recorded.ended).toBeNull();
      // tRPC wrote each event's promise and stream as {}.
      expect(recorded.events).toEqual([1, 2, 3].map((n) => ({ n, later: {}, more: {} })));
      const atEnd = asked(token);
      await sleep(SEVERAL_INTERVALS);
      expect(asked(token)).toBe(atEnd);
    } finally {
      recorded.stop();
      await close();
    }
  });
});

describe('a promise in a result, through createCaller', () => {
  const caller = (token: string) => t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } });

  it('is a promise (instanceof Promise, with then and catch), and starts nothing until it is consumed', async () => {
    const token = table.issue(['items']);
    const result = await caller(token).pending();
    expect(result.later).toBeInstanceOf(Promise);
    expect(typeof result.later.then).toBe('function');
    expect(typeof result.later.catch).toBe('function');
    expect(JSON.stringify(result)).toBe('{"now":1,"later":{}}');
    await sleep(SEVERAL_INTERVALS);
    expect(asked(token)).toBe(1);
    // What derives from it is a plain promise.
    const derived = result.later.finally(() => undefined);
    expect(derived.constructor).toBe(Promise);
    derived.catch(() => undefined);
  });

  it('once consumed, follows the credentials, and rejects with the refusal of a recheck', async () => {
    const token = table.issue(['items']);
    const { later } = await caller(token).pending();
    const ending = settle(later);
    await vi.waitFor(() => expect(asked(token)).toBeGreaterThan(1));
    table.revoke(token);
    const { error } = (await ending) as { error: unknown };
    expect(failure(error)).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token is not active' });
  });

  it('rejects at the expiry for every consumer (await, catch, finally, Promise.all, Promise.race), with one error', async () => {
    const token = table.issue(['items'], 150);
    const { later } = await caller(token).pending();
    const consumers = [
      (async () => await later)(),
      new Promise((resolve, reject) => void later.catch(reject)),
      later.finally(() => undefined),
      Promise.all([later]),
      Promise.race([later]),
    ];
    const endings = await Promise.all(consumers.map(settle));
    const errors = endings.map((ending) => (ending as { error: unknown }).error);
    expect(failure(errors[0])).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, message: 'The access token expired' });
    for (const error of errors) expect(error).toBe(errors[0]);
  });

  it('delivers the value of a promise that settles while the token is valid', async () => {
    const values = t.router({ q: t.procedure.use(rechecking.withScopes('items')).query(() => ({ later: Promise.resolve({ n: 42 }) })) });
    const { later } = await t.createCallerFactory(values)({ headers: { authorization: `Bearer ${table.issue(['items'])}` } }).q();
    expect(await later).toEqual({ n: 42 });
  });

  it('rejects when first consumed after the credentials ended (a stream of the result opened then ends at once)', async () => {
    const values = t.router({ q: t.procedure.use(rechecking.withScopes('items')).query(() => ({ later: Promise.resolve({ n: 42 }) })) });
    const { later } = await t.createCallerFactory(values)({ headers: { authorization: `Bearer ${table.issue(['items'], 50)}` } }).q();
    await sleep(100);
    const { error } = (await settle(later)) as { error: unknown };
    expect(failure(error)).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
  });

  it('starts no recheck for the promises and streams inside events it skips', async () => {
    const token = table.issue(['items']);
    const stream = await caller(token).events();
    const seen: number[] = [];
    for await (const event of stream) {
      seen.push(event.n);
      expect(event.later).toBeInstanceOf(Promise);
      expect(typeof event.more[Symbol.asyncIterator]).toBe('function');
    }
    expect(seen).toEqual([1, 2, 3]);
    const atEnd = asked(token);
    await sleep(SEVERAL_INTERVALS);
    expect(asked(token)).toBe(atEnd);
  });

  it("guards another call's promise, returned as this call's, with both credentials, starting neither until consumed", async () => {
    const [outerToken, innerToken] = [table.issue(['items']), table.issue(['items'])];
    const outer = t.router({
      q: t.procedure.use(rechecking.withScopes('items')).query(async () => {
        const { later } = await caller(innerToken).pending();
        return { later };
      }),
    });
    const { later } = await t.createCallerFactory(outer)({ headers: { authorization: `Bearer ${outerToken}` } }).q();
    await sleep(SEVERAL_INTERVALS);
    expect([asked(outerToken), asked(innerToken)]).toEqual([1, 1]);
    const ending = settle(later);
    await vi.waitFor(() => expect(Math.min(asked(outerToken), asked(innerToken))).toBeGreaterThan(1));
    table.revoke(innerToken);
    const { error } = (await ending) as { error: unknown };
    expect(failure(error)).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token is not active' });
  });

  it("reports no unhandled rejection for the application's promise nobody consumes, nor for a consumed one", async () => {
    const unread = await unhandledDuring(async () => {
      const result = await caller(table.issue(['items'])).failing();
      expect(result.now).toBe(1);
    });
    expect(unread).toEqual([]);
    const read = await unhandledDuring(async () => {
      const { failed } = await caller(table.issue(['items'])).failing();
      await expect(failed).rejects.toThrow('the application failed');
    });
    expect(read).toEqual([]);
  });
});
