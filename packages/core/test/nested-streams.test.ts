/**
 * tRPC streams more of a query's result than the result itself: to `httpBatchStreamLink` it
 * streams every promise and async iterable among the values of a plain object the resolver
 * returned (`{ feed: generator(), later: promise }`), and, inside each of those, what they produce
 * the same way. Behind a verified reader each of them lives by the chain's credentials as a
 * returned stream does: nothing produced after the token expired (or after a recheck refused it)
 * is delivered, and one recheck per interval serves every stream of a result. What tRPC does not
 * stream is left as the resolver returned it. See docs/contract.md#subscriptions.
 */
import { getEventListeners } from 'node:events';
import { createTRPCClient, httpBatchLink, httpBatchStreamLink } from '@trpc/client';
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getOAuth2Error, oauth2PasswordBearer } from '../src/index.js';
import { ADAPTERS, serveRouter, type Adapter, type RunningServer } from './support/serve.js';
import { TokenTable } from './support/streams-router.js';

vi.setConfig({ testTimeout: 30_000 });

const t = initTRPC.context<{ req?: unknown; headers?: Record<string, string> }>().create();
const SCOPES = { me: 'Read me', items: 'Read items' } as const;
const table = new TokenTable();
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: SCOPES, verify: table.verify });
/** Rechecks every 30 ms. */
const rechecking = oauth2PasswordBearer({ tokenUrl: 'token', scopes: SCOPES, verify: table.verify, recheckInterval: 30, schemeName: 'Rechecking' });

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Tick {
  readonly i: number;
  readonly producedAt: number;
}

/** Events every 10 ms, each saying when it was produced. */
async function* ticks(count = 200): AsyncGenerator<Tick> {
  for (let i = 1; i <= count; i++) {
    await sleep(10);
    yield { i, producedAt: Date.now() };
  }
}

/** A value produced `ms` from now. */
const later = (ms: number): Promise<Tick> => sleep(ms).then(() => ({ i: 0, producedAt: Date.now() }));

/** Events every 10 ms, each with a detail that arrives `detailMs` after it. */
async function* withDetails(detailMs: number) {
  for (let i = 1; i <= 200; i++) {
    await sleep(10);
    yield { i, detail: later(detailMs) };
  }
}

/** Not a plain object: tRPC's encoder does not look inside it, and neither does the guard. */
class Box {
  constructor(readonly feed: AsyncIterable<Tick>) {}
}

const router = t.router({
  nested: t.procedure.use(auth.withScopes('items')).query(() => ({ title: 'ticks', feed: ticks() })),
  deferred: t.procedure.use(auth.withScopes('items')).query(() => ({ now: 1, later: later(500) })),
  details: t.procedure.use(auth.withScopes('items')).query(() => withDetails(400)),
  nestedDetails: t.procedure.use(auth.withScopes('items')).mutation(() => ({ feed: withDetails(400) })),
  several: t.procedure.use(rechecking.withScopes('items')).query(() => ({ a: ticks(), b: ticks(), c: ticks() })),
  /** Guarded by two steps of the same call: the outer one leaves the inner one's guard alone. */
  twice: t.procedure.use(auth).use(auth.requireScopes('items')).query(() => ({ feed: ticks() })),
});
type AppRouter = typeof router;

type Ending = { events: unknown[]; end: 'done' | 'streaming' | { message: string; code: string | undefined; httpStatus: number | undefined } };

const failure = (error: unknown) => {
  const data = (error as { data?: { code?: string; httpStatus?: number }; code?: string }).data;
  return { message: (error as Error).message, code: data?.code ?? (error as { code?: string }).code, httpStatus: data?.httpStatus ?? getOAuth2Error(error)?.status };
};

/** Reads `stream` for at most `ms`, calling `after(n)` once the n-th event arrived. */
async function read(stream: AsyncIterable<unknown>, ms = 1500, after?: (n: number) => void): Promise<Ending> {
  const events: unknown[] = [];
  const iterator = stream[Symbol.asyncIterator]();
  const deadline = Date.now() + ms;
  try {
    while (Date.now() < deadline) {
      const next = await Promise.race([iterator.next(), sleep(deadline - Date.now()).then(() => 'late' as const)]);
      if (next === 'late') break;
      if (next.done) return { events, end: 'done' };
      events.push(next.value);
      after?.(events.length);
    }
    return { events, end: 'streaming' };
  } catch (error) {
    return { events, end: failure(error) };
  } finally {
    void iterator.return?.();
  }
}

/** How a promise settled: its value, or the error's description. */
const settle = (promise: Promise<unknown>) =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error: failure(error) }),
  );

const producedAfter = (events: unknown[], at: number) => (events as Tick[]).filter((event) => event.producedAt >= at);

describe.each(ADAPTERS)('streams inside a result, through the %s adapter (httpBatchStreamLink)', (adapter: Adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, adapter);
  });
  afterAll(() => server.close());

  const clientWith = (token: string) =>
    createTRPCClient<AppRouter>({ links: [httpBatchStreamLink({ url: server.url, headers: { authorization: `Bearer ${token}` } })] });

  it("ends a generator among the result's values when the token expires, the other values as returned", async () => {
    // Long enough that the stream delivers events before it on a loaded machine (the call itself
    // took over 300 ms there), short enough to end within the read's 3 s.
    const token = table.issue(['items'], 1_000);
    const expiresAt = Date.now() + 1_000;
    const result = await clientWith(token).nested.query();
    expect(result.title).toBe('ticks');
    const { events, end } = await read(result.feed, 3_000);
    expect(end).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, message: 'The access token expired' });
    expect(events.length).toBeGreaterThan(0);
    expect(producedAfter(events, expiresAt)).toEqual([]);
  });

  it('rejects a promise among the values that settles after the token expired, and delivers one that settles before', async () => {
    const expiring = await clientWith(table.issue(['items'], 200)).deferred.query();
    expect(expiring.now).toBe(1);
    expect(await settle(expiring.later)).toMatchObject({ error: { code: 'UNAUTHORIZED', message: 'The access token expired' } });
    const lasting = await clientWith(table.issue(['items'], 5_000)).deferred.query();
    expect(await settle(lasting.later)).toMatchObject({ value: { i: 0 } });
  });

  it('rejects a promise inside an event of a stream (a returned one, or one among the values) once the token expired', async () => {
    for (const call of [(token: string) => clientWith(token).details.query(), async (token: string) => (await clientWith(token).nestedDetails.mutate()).feed]) {
      const token = table.issue(['items'], 250);
      const expiresAt = Date.now() + 250;
      const stream = await call(token);
      const iterator = stream[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.done).toBe(false);
      // Its detail arrives 400 ms after the first event, past the expiry.
      const detail = await settle((first.value as { detail: Promise<Tick> }).detail);
      expect(detail).toMatchObject({ error: { code: 'UNAUTHORIZED', message: 'The access token expired' } });
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
      await iterator.return?.();
    }
  });

  it('ends every stream of a result when a recheck refuses the token, with one recheck per interval for all of them', async () => {
    const token = table.issue(['items']);
    const before = table.asked.get(token) ?? 0;
    const started = Date.now();
    const { a, b, c } = await clientWith(token).several.query();
    const endings = await Promise.all([read(a, 3000, (n) => n === 20 && table.revoke(token)), read(b, 3000), read(c, 3000)]);
    const elapsed = Date.now() - started;
    for (const { end } of endings) expect(end).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token is not active' });
    // One verification to open, then one recheck every 30 ms for the three streams together.
    expect((table.asked.get(token) ?? 0) - before).toBeLessThanOrEqual(1 + Math.ceil(elapsed / 30));
  });

  it('ends a stream guarded by two steps of one chain at its expiry, once', async () => {
    const token = table.issue(['items'], 300);
    const expiresAt = Date.now() + 300;
    const { events, end } = await read((await clientWith(token).twice.query()).feed);
    expect(end).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    expect(producedAfter(events, expiresAt)).toEqual([]);
  });

  it('still refuses such a result to a client that does not stream (tRPC answers 415)', async () => {
    const batch = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: server.url, headers: { authorization: `Bearer ${table.issue(['items'])}` } })] });
    await expect(batch.nested.query()).rejects.toMatchObject({ data: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
  });
});

describe('streams inside a result, through createCaller', () => {
  const caller = (token: string) => t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } });

  it('hands over the generators and promises among the values, guarded as over HTTP', async () => {
    const token = table.issue(['items'], 250);
    const expiresAt = Date.now() + 250;
    const [result, deferred] = await Promise.all([caller(token).nested(), caller(token).deferred()]);
    const { events, end } = await read(result.feed);
    expect(end).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    expect(producedAfter(events, expiresAt)).toEqual([]);
    expect(await settle(deferred.later)).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  });

  it('leaves what tRPC does not stream as the resolver returned it: the very object', async () => {
    const returned = [{ list: [1, 2, 3] }, { nested: { feed: ticks(1) } }, [ticks(1)], new Box(ticks(1)), { count: 3, then: 'not a method' }];
    for (const value of returned) {
      const plain = t.createCallerFactory(t.router({ q: t.procedure.use(auth.withScopes('items')).query(() => value) }));
      expect(await plain({ headers: { authorization: `Bearer ${table.issue(['items'])}` } }).q()).toBe(value);
    }
  });

  it('keeps an own __proto__ key of the result a key, and the prototype as it was', async () => {
    const returned = JSON.parse('{"__proto__": {"polluted": true}, "title": "ticks"}') as Record<string, unknown>;
    returned.feed = ticks(3);
    const parsed = t.createCallerFactory(t.router({ q: t.procedure.use(auth.withScopes('items')).query(() => returned) }));
    const result = (await parsed({ headers: { authorization: `Bearer ${table.issue(['items'])}` } }).q()) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.keys(result)).toEqual(['__proto__', 'title', 'feed']);
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ polluted: true });
    expect(await read(result.feed as AsyncIterable<unknown>)).toMatchObject({ end: 'done', events: [{ i: 1 }, { i: 2 }, { i: 3 }] });
  });

  it('holds nothing on the call signal for a stream inside an event nobody iterates', async () => {
    async function* one() {
      yield 1;
    }
    async function* events() {
      // Over Server-Sent Events tRPC writes `more` as {}: nobody iterates it.
      for (let i = 0; i < 200; i++) yield { i, more: one() };
    }
    const feeds = t.router({ feed: t.procedure.use(auth.withScopes('items')).subscription(events) });
    const call = new AbortController();
    const stream = await t.createCallerFactory(feeds)({ headers: { authorization: `Bearer ${table.issue(['items'])}` } }, { signal: call.signal }).feed();
    let seen = 0;
    let listening = 0;
    for await (const event of stream) {
      seen++;
      // Each event's stream is guarded all the same.
      expect(typeof (event.more as AsyncIterable<number>)[Symbol.asyncIterator]).toBe('function');
      listening = Math.max(listening, getEventListeners(call.signal, 'abort').length);
    }
    expect(seen).toBe(200);
    // The subscription's own end follows the signal while it runs; no event adds to it.
    expect(listening).toBeLessThanOrEqual(2);
  });

  it('reports no unhandled rejection for a guarded promise nobody waits for', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const token = table.issue(['items'], 100);
      const result = await caller(token).deferred();
      expect(result.now).toBe(1);
      // `later` settles after the expiry, and nobody waits for it.
      await sleep(700);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});
