/**
 * A query or a mutation whose resolver returns a stream (an async generator, an observable) is
 * streamed by tRPC v11 to `httpBatchStreamLink` (`trpc-accept: application/jsonl`), and handed to
 * a `createCaller` caller as the iterable itself. Behind a verified reader that stream ends with
 * its token exactly as a subscription's does: at the earliest `expiresAt` (nothing produced after
 * it is delivered), and when a recheck refuses the token or finds a scope of the chain withdrawn.
 * An ordinary result is unchanged. See docs/contract.md#subscriptions.
 */
import { createTRPCClient, httpBatchLink, httpBatchStreamLink } from '@trpc/client';
import { initTRPC } from '@trpc/server';
import { observable } from '@trpc/server/observable';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getOAuth2Error, oauth2AuthorizationCodeBearer, oauth2PasswordBearer } from '../src/index.js';
import { ADAPTERS, serveRouter, type Adapter, type RunningServer } from './support/serve.js';
import { TokenTable } from './support/streams-router.js';

// Streams run for up to a second each; a busy machine must not turn that into a timeout.
vi.setConfig({ testTimeout: 30_000 });

const t = initTRPC.context<{ req?: unknown; headers?: Record<string, string> }>().create();
const SCOPES = { me: 'Read me', items: 'Read items', admin: 'Administer' } as const;
const table = new TokenTable();
/** Verifies once; the stream ends at the principal's `expiresAt`. */
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: SCOPES, verify: table.verify });
/** Rechecks every 30 ms; `admin` implies `items`. */
const rechecking = oauth2PasswordBearer({ tokenUrl: 'token', scopes: SCOPES, implies: { admin: ['items'] }, verify: table.verify, recheckInterval: 30, schemeName: 'Rechecking' });
/** A second verified reader over the same table, to chain two. */
const other = oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', scopes: SCOPES, verify: table.verify });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Events every 10 ms, each saying when it was produced, for at most `count` events (about 2 s). */
async function* ticks(count = 200) {
  for (let i = 1; i <= count; i++) {
    await sleep(10);
    yield { i, producedAt: Date.now() };
  }
}

/** What the resolvers of {@link router} hand back, per test. */
const seen = { returned: 0, streamSignal: [] as boolean[] };

const router = t.router({
  feed: t.procedure.use(auth.withScopes('items')).query(async function* ({ ctx }) {
    seen.streamSignal.push('streamSignal' in ctx);
    try {
      yield* ticks();
    } finally {
      seen.returned++;
    }
  }),
  post: t.procedure.use(auth.withScopes('items')).mutation(() => ticks()),
  observed: t.procedure.use(auth.withScopes('items')).query(() =>
    observable<{ i: number; producedAt: number }>((observer) => {
      let i = 0;
      const timer = setInterval(() => observer.next({ i: ++i, producedAt: Date.now() }), 10);
      return () => clearInterval(timer);
    }),
  ),
  rechecked: t.procedure.use(rechecking.withScopes('items')).query(() => ticks()),
  /** `rechecking` verifies; a later step adds `me`, which a recheck must find granted too. */
  chained: t.procedure.use(rechecking).use(other.requireScopes('me')).query(() => ticks()),
  /** Three events, then done. */
  short: t.procedure.use(auth.withScopes('items')).query(() => ticks(3)),
  /** An observable in tRPC's sense (any object with `subscribe`), as other libraries make them: no `pipe`. */
  minimal: t.procedure.use(auth.withScopes('items')).query(() => ({
    subscribe(observer: { next: (value: { i: number; producedAt: number }) => void }) {
      let i = 0;
      const timer = setInterval(() => observer.next({ i: ++i, producedAt: Date.now() }), 10);
      return { unsubscribe: () => clearInterval(timer) };
    },
  })),
  plain: t.procedure.use(auth.withScopes('items')).query(({ ctx }) => ({ scopes: [...ctx.principal.scopes], list: [1, 2, 3] })),
  plainMutation: t.procedure.use(auth.withScopes('items')).mutation(() => 'done'),
});
type AppRouter = typeof router;

/** What a stream delivered, and how it ended: `'done'`, `'streaming'` when it outlived `ms`, or the error. */
interface Ending {
  readonly events: { i: number; producedAt: number }[];
  readonly end: 'done' | 'streaming' | { message: string; code: string | undefined; httpStatus: number | undefined };
}

/** Reads `stream` for at most `ms`, calling `after(n)` once the n-th event arrived. */
async function read(stream: AsyncIterable<{ i: number; producedAt: number }>, ms = 1500, after?: (n: number) => void): Promise<Ending> {
  const events: Ending['events'] = [];
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
    const data = (error as { data?: { code?: string; httpStatus?: number }; code?: string }).data;
    return { events, end: { message: (error as Error).message, code: data?.code ?? (error as { code?: string }).code, httpStatus: data?.httpStatus ?? getOAuth2Error(error)?.status } };
  } finally {
    void iterator.return?.();
  }
}

// Tokens that expire mid-stream last 1 s: long enough that a loaded machine still delivers events
// before the expiry (a 300 ms one did not always), short enough to end within a read's 3 s.
describe.each(ADAPTERS)('a streamed query through the %s adapter (httpBatchStreamLink)', (adapter: Adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, adapter);
  });
  afterAll(() => server.close());

  const clientWith = (token: string) =>
    createTRPCClient<AppRouter>({ links: [httpBatchStreamLink({ url: server.url, headers: { authorization: `Bearer ${token}` } })] });

  it('stops delivering when its token expires: nothing produced after expiresAt reaches the client', async () => {
    seen.streamSignal.length = 0;
    const token = table.issue(['items'], 1_000);
    const expiresAt = Date.now() + 1_000;
    const { events, end } = await read(await clientWith(token).feed.query(), 3_000);
    expect(end).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, message: 'The access token expired' });
    expect(events.length).toBeGreaterThan(0);
    expect(events.filter((event) => event.producedAt >= expiresAt)).toEqual([]);
    // The resolver's ctx has no streamSignal: whether a query streams is known only once it returned.
    expect(seen.streamSignal).toEqual([false]);
  });

  it('stops delivering when its token expires, for a mutation and for an observable too', async () => {
    for (const call of [(token: string) => clientWith(token).post.mutate(), (token: string) => clientWith(token).observed.query()]) {
      const token = table.issue(['items'], 1_000);
      const expiresAt = Date.now() + 1_000;
      const { events, end } = await read((await call(token)) as AsyncIterable<{ i: number; producedAt: number }>, 3_000);
      expect(end).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
      expect(events.length).toBeGreaterThan(0);
      expect(events.filter((event) => event.producedAt >= expiresAt)).toEqual([]);
    }
  });

  it('stops delivering when its token expires, for an observable without pipe (tRPC streams any object with subscribe)', async () => {
    const token = table.issue(['items'], 1_000);
    const expiresAt = Date.now() + 1_000;
    const { events, end } = await read((await clientWith(token).minimal.query()) as unknown as AsyncIterable<{ i: number; producedAt: number }>, 3_000);
    expect(end).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    expect(events.length).toBeGreaterThan(0);
    expect(events.filter((event) => event.producedAt >= expiresAt)).toEqual([]);
  });

  it('stops when a recheck finds the token revoked (401)', async () => {
    const token = table.issue(['items']);
    const { events, end } = await read(await clientWith(token).rechecked.query(), 1500, (n) => n === 3 && table.revoke(token));
    expect(end).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, message: 'The access token is not active' });
    // Revoked after the third event; a recheck every 30 ms, an event every 10 ms.
    expect(events.length).toBeLessThan(20);
  });

  it("stops with the reader's 403 when a recheck finds a scope of the chain withdrawn, a later step's included", async () => {
    const narrowed = table.issue(['items']);
    const first = await read(await clientWith(narrowed).rechecked.query(), 1500, (n) => n === 3 && table.regrant(narrowed, ['me']));
    expect(first.end).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
    const withdrawn = table.issue(['me', 'items']);
    const second = await read(await clientWith(withdrawn).chained.query(), 1500, (n) => n === 3 && table.regrant(withdrawn, ['items']));
    expect(second.end).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
  });

  it('keeps streaming while the rechecks find the grant (through the scope hierarchy), and ends when the resolver does', async () => {
    const token = table.issue(['admin']); // admin implies items
    const asked = () => table.asked.get(token) ?? 0;
    const { events, end } = await read(await clientWith(token).rechecked.query(), 400);
    expect(end).toBe('streaming');
    expect(events.length).toBeGreaterThan(5);
    expect(asked()).toBeGreaterThanOrEqual(3);
    expect(await read(await clientWith(table.issue(['items'])).short.query())).toMatchObject({ end: 'done', events: [{ i: 1 }, { i: 2 }, { i: 3 }] });
  });

  it('leaves an ordinary result as it was, streamed or not', async () => {
    const token = table.issue(['items']);
    const expected = { scopes: ['items'], list: [1, 2, 3] };
    expect(await clientWith(token).plain.query()).toEqual(expected);
    expect(await clientWith(token).plainMutation.mutate()).toBe('done');
    const batch = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: server.url, headers: { authorization: `Bearer ${token}` } })] });
    expect(await batch.plain.query()).toEqual(expected);
    const response = await fetch(`${server.url}/plain?batch=1&input=${encodeURIComponent('{}')}`, { headers: { authorization: `Bearer ${token}` } });
    expect(await response.json()).toEqual([{ result: { data: expected } }]);
  });
});

describe('a streamed query through createCaller', () => {
  const caller = (token: string) => t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } });

  it('hands over an iterable that ends when the token expires, and returns the source', async () => {
    seen.returned = 0;
    const token = table.issue(['items'], 250);
    const expiresAt = Date.now() + 250;
    const { events, end } = await read(await caller(token).feed());
    expect(end).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    expect(events.length).toBeGreaterThan(0);
    expect(events.filter((event) => event.producedAt >= expiresAt)).toEqual([]);
    await sleep(50);
    expect(seen.returned).toBe(1);
  });

  it('hands over an iterable that ends when a recheck refuses the token, or finds a scope withdrawn', async () => {
    const revoked = table.issue(['items']);
    expect(await read(await caller(revoked).rechecked(), 1500, (n) => n === 2 && table.revoke(revoked))).toMatchObject({ end: { code: 'UNAUTHORIZED', message: 'The access token is not active' } });
    const narrowed = table.issue(['items']);
    const { end } = await read(await caller(narrowed).rechecked(), 1500, (n) => n === 2 && table.regrant(narrowed, ['me']));
    expect(end).toMatchObject({ code: 'FORBIDDEN', httpStatus: 403 });
  });

  it('a mutation too, and an ordinary result stays the very object the resolver returned', async () => {
    const token = table.issue(['items'], 250);
    expect(await read(await caller(token).post())).toMatchObject({ end: { code: 'UNAUTHORIZED', message: 'The access token expired' } });
    // An object whose `subscribe` is not a method is data, not an observable.
    for (const returned of [{ ok: true }, { subscribe: true }, { pipe() {} }, 'text', null]) {
      const plain = t.createCallerFactory(t.router({ q: t.procedure.use(auth.withScopes('items')).query(() => returned) }));
      expect(await plain({ headers: { authorization: `Bearer ${table.issue(['items'])}` } }).q()).toBe(returned);
    }
  });

  it('is guarded once by a chain of several steps: one recheck per interval, not one per step', async () => {
    const chain = t.createCallerFactory(
      t.router({ q: t.procedure.use(rechecking).use(rechecking.requireScopes('me')).use(rechecking.withScopes('items')).query(() => ticks()) }),
    );
    const token = table.issue(['me', 'items']);
    const before = table.asked.get(token) ?? 0;
    const started = Date.now();
    // Revoked after some 300 ms of streaming.
    const { events, end } = await read(await chain({ headers: { authorization: `Bearer ${token}` } }).q(), 1500, (n) => n === 30 && table.revoke(token));
    const elapsed = Date.now() - started;
    expect(end).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token is not active' });
    expect(events.length).toBeGreaterThanOrEqual(30);
    // One verification to open, then at most one recheck every 30 ms (timers never fire early).
    expect((table.asked.get(token) ?? 0) - before).toBeLessThanOrEqual(1 + Math.ceil(elapsed / 30));
  });

  it("hands over another call's observable, returned as this call's, as an observable still, ending with this call's token", async () => {
    const inner = t.createCallerFactory(t.router({ inner: t.procedure.use(auth.withScopes('items')).query(() => observable<number>((observer) => {
      let i = 0;
      const timer = setInterval(() => observer.next(++i), 10);
      return () => clearInterval(timer);
    })) }));
    const service = table.issue(['items'], 3_600_000);
    const outer = t.createCallerFactory(
      t.router({ q: t.procedure.use(auth.withScopes('items')).query(() => inner({ headers: { authorization: `Bearer ${service}` } }).inner()) }),
    );
    const expiring = table.issue(['items'], 250);
    const returned = await outer({ headers: { authorization: `Bearer ${expiring}` } }).q();
    expect(typeof (returned as { subscribe?: unknown }).subscribe).toBe('function');
    const ending = await new Promise<unknown>((resolve) => {
      const subscription = returned.subscribe({ error: resolve, complete: () => resolve('complete') });
      setTimeout(() => {
        subscription.unsubscribe();
        resolve('streaming');
      }, 1500);
    });
    expect(ending).toMatchObject({ message: 'The access token expired' });
  });

  it("ends with this call's token when the resolver returns another call's stream", async () => {
    const service = table.issue(['items'], 3_600_000);
    const inner = t.createCallerFactory(t.router({ inner: t.procedure.use(auth.withScopes('items')).query(() => ticks()) }));
    const outer = t.createCallerFactory(
      t.router({ q: t.procedure.use(rechecking.withScopes('items')).query(() => inner({ headers: { authorization: `Bearer ${service}` } }).inner()) }),
    );
    const expiring = table.issue(['items'], 250);
    expect(await read(await outer({ headers: { authorization: `Bearer ${expiring}` } }).q())).toMatchObject({ end: { message: 'The access token expired' } });
    const revoked = table.issue(['items']);
    const ending = await read(await outer({ headers: { authorization: `Bearer ${revoked}` } }).q(), 1500, (n) => n === 2 && table.revoke(revoked));
    expect(ending).toMatchObject({ end: { message: 'The access token is not active' } });
  });
});
