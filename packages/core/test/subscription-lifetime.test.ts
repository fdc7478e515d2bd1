/**
 * How a protected subscription's stream ends, beyond what subscriptions.test.ts covers: a recheck
 * judges the grant as the opening check did (scope hierarchy, the reader's own 403); an event
 * produced after the expiry is never delivered, even by a source that never lets a timer run; the
 * resolver learns of the end, whichever it is, from `ctx.streamSignal`; an observable stays an
 * observable through `createCaller` and starts only when consumed; and a reader refuses what no
 * timer could honour. See docs/contract.md#subscriptions.
 */
import { EventEmitter, getEventListeners, on } from 'node:events';
import { initTRPC, TRPCError } from '@trpc/server';
import { observable, type Observable } from '@trpc/server/observable';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getOAuth2Error, oauth2AuthorizationCodeBearer, oauth2PasswordBearer, type Principal } from '../src/index.js';
import { record, serveStreams, streamClient, TRANSPORTS, type StreamServers } from './support/streams.js';
import { numbered, TokenTable } from './support/streams-router.js';

// Streams run for up to a second each; a busy machine must not turn that into a timeout.
vi.setConfig({ testTimeout: 30_000 });

type Ctx = { req?: unknown; info?: unknown; headers?: Record<string, string> };
const t = initTRPC.context<Ctx>().create();
const SCOPES = { me: 'Read me', items: 'Read items', admin: 'Administer' } as const;
const table = new TokenTable();
/** Rechecks every 50 ms; `admin` implies `items`. */
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: SCOPES, implies: { admin: ['items'] }, verify: table.verify, recheckInterval: 50 });
/** A second reader over the same table, to chain two readers. */
const other = oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', scopes: SCOPES, verify: table.verify });

const streamSignalOf = (ctx: object) => (ctx as { streamSignal?: AbortSignal }).streamSignal;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Keeps the CPU for `ms` milliseconds, letting no timer run. */
const busy = (ms: number) => {
  for (const end = Date.now() + ms; Date.now() < end; );
};
/** Resolves once `condition` holds, asked every 10 ms for at most `ms` milliseconds. */
async function eventually(condition: () => boolean, ms = 2000): Promise<boolean> {
  for (const end = Date.now() + ms; !condition() && Date.now() < end; ) await sleep(10);
  return condition();
}

/** What the resolvers of {@link router} saw, per test. */
const seen = { signals: [] as (AbortSignal | undefined)[], sourceReturned: 0, subscribed: 0, tornDown: 0 };
const emitter = new EventEmitter();
/** An observable of a number every 10 ms, counting subscriptions and teardowns. */
const ticks = (): Observable<number, unknown> =>
  observable((observer) => {
    seen.subscribed++;
    let n = 0;
    const timer = setInterval(() => observer.next(++n), 10);
    return () => {
      seen.tornDown++;
      clearInterval(timer);
    };
  });

const router = t.router({
  /** Numbered events every 10 ms. */
  items: t.procedure.use(auth.withScopes('items')).subscription(({ ctx }) => numbered(undefined, 10, streamSignalOf(ctx))),
  /** A source that replays a backlog: each event takes 10 ms of CPU to make. */
  backlog: t.procedure.use(auth.withScopes('me')).subscription(async function* () {
    for (let i = 0; i < 100; i++) {
      busy(10);
      yield { i, producedAt: Date.now() };
    }
  }),
  /** A source waiting on an event emitter, stopping on `ctx.streamSignal`. */
  emitted: t.procedure.use(auth.withScopes('me')).subscription(async function* ({ ctx }) {
    seen.signals.push(streamSignalOf(ctx));
    try {
      for await (const [event] of on(emitter, 'tick', { signal: streamSignalOf(ctx) })) yield event as number;
    } finally {
      seen.sourceReturned++;
    }
  }),
  ticks: t.procedure.use(auth.withScopes('me')).subscription(({ ctx }) => (seen.signals.push(streamSignalOf(ctx)), ticks())),
  whoami: t.procedure.use(auth).query(({ ctx }) => ({ streamSignal: 'streamSignal' in ctx })),
});
const caller = (token: string, signal?: AbortSignal) => t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } }, { signal });

let servers: StreamServers;
beforeAll(async () => {
  servers = await serveStreams(router);
});
afterAll(() => servers.close());

const reset = () => Object.assign(seen, { signals: [], sourceReturned: 0, subscribed: 0, tornDown: 0 });

describe('a recheck', () => {
  it.each(TRANSPORTS)("applies the reader's scope hierarchy, as the opening check does (%s)", async (transport) => {
    const token = table.issue(['admin']); // admin implies items
    const { client, close } = streamClient<typeof router>(servers, transport, { authorization: () => `Bearer ${token}` });
    const recorded = record<unknown>((input, opts) => client.items.subscribe(input, opts));
    await recorded.received(1);
    const asked = table.asked.get(token)!;
    await eventually(() => table.asked.get(token)! >= asked + 3);
    const ended = await Promise.race([recorded.ended, sleep(100).then(() => 'still streaming')]);
    recorded.stop();
    await close();
    expect(table.asked.get(token)! - asked).toBeGreaterThanOrEqual(3);
    expect(ended).toBe('still streaming');
  });

  it("ends a stream whose grant narrowed with the reader's own 403 (its challenge names the resource metadata)", async () => {
    const metadata = 'https://api.example/.well-known/oauth-protected-resource';
    const reader = oauth2PasswordBearer({ tokenUrl: 'token', scopes: SCOPES, verify: table.verify, recheckInterval: 30, resourceMetadata: metadata });
    const narrowing = t.router({ s: t.procedure.use(reader.withScopes('items')).subscription(({ ctx }) => numbered(undefined, 10, streamSignalOf(ctx))) });
    const token = table.issue(['items']);
    const stream = await t.createCallerFactory(narrowing)({ headers: { authorization: `Bearer ${token}` } }).s();
    table.regrant(token, ['me']);
    const error = await (async () => {
      for await (const _ of stream);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'FORBIDDEN' });
    expect(getOAuth2Error(error)?.headers['WWW-Authenticate']).toBe(`Bearer error="insufficient_scope", scope="items", resource_metadata="${metadata}"`);
  });
});

describe('an event produced after the expiry', () => {
  it('is not delivered by a source that never lets a timer run (createCaller)', async () => {
    const token = table.issue(['me'], 200);
    const expiresAt = Date.now() + 200;
    const delivered: { producedAt: number }[] = [];
    const error = await (async () => {
      for await (const event of await caller(token).backlog()) delivered.push(event);
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    expect(delivered.length).toBeGreaterThan(0);
    expect(delivered.filter((event) => event.producedAt >= expiresAt)).toEqual([]);
  });

  it.each(TRANSPORTS)('is not delivered by a source that never lets a timer run (%s)', async (transport) => {
    const token = table.issue(['me'], 300);
    const expiresAt = Date.now() + 300;
    const { client, close } = streamClient<typeof router>(servers, transport, { authorization: () => `Bearer ${token}` });
    const recorded = record<{ producedAt: number }>((input, opts) => client.backlog.subscribe(input, opts));
    const ended = await recorded.ended;
    await close();
    expect(ended).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    expect(recorded.events.filter((event) => event.producedAt >= expiresAt)).toEqual([]);
  });
});

describe('ctx.streamSignal', () => {
  it.each(TRANSPORTS)('stops a source waiting for an event when the token expires: its finally runs, no listener stays (%s)', async (transport) => {
    reset();
    const token = table.issue(['me'], 400);
    const { client, close } = streamClient<typeof router>(servers, transport, { authorization: () => `Bearer ${token}` });
    const recorded = record<number>((input, opts) => client.emitted.subscribe(input, opts));
    await eventually(() => emitter.listenerCount('tick') === 1);
    emitter.emit('tick', 1);
    const ended = await recorded.ended;
    const returned = await eventually(() => seen.sourceReturned === 1);
    await close();
    expect(ended).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    expect(recorded.events).toEqual([1]);
    expect(returned).toBe(true);
    expect(emitter.listenerCount('tick')).toBe(0);
    expect(seen.signals).toHaveLength(1);
    expect(seen.signals[0]!.aborted).toBe(true);
  });

  it.each(TRANSPORTS)("unsubscribes an observable resolver's source when the token expires (%s)", async (transport) => {
    reset();
    const token = table.issue(['me'], 300);
    const { client, close } = streamClient<typeof router>(servers, transport, { authorization: () => `Bearer ${token}` });
    const recorded = record<number>((input, opts) => client.ticks.subscribe(input, opts));
    const ended = await recorded.ended;
    const tornDown = await eventually(() => seen.tornDown === 1);
    await close();
    expect(ended).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    expect(recorded.events.length).toBeGreaterThan(5);
    expect(tornDown).toBe(true);
    expect(seen.subscribed).toBe(1);
  });

  it('aborts when a recheck refuses the token, and when the client goes away', async () => {
    reset();
    const revoked = table.issue(['me']);
    const stream = await caller(revoked).emitted();
    const consumed = (async () => {
      for await (const _ of stream);
    })().catch((e: unknown) => e);
    await eventually(() => emitter.listenerCount('tick') === 1);
    table.revoke(revoked);
    expect(await consumed).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token is not active' });
    expect(seen.signals[0]!.aborted).toBe(true);
    expect(await eventually(() => seen.sourceReturned === 1)).toBe(true);

    const client = new AbortController();
    const listening = (getEventListeners(client.signal, 'abort') as unknown[]).length;
    const gone = await caller(table.issue(['me']), client.signal).emitted();
    const iterator = gone[Symbol.asyncIterator]();
    const pending = iterator.next();
    await eventually(() => emitter.listenerCount('tick') === 1);
    client.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(seen.signals[1]!.aborted).toBe(true);
    expect(await eventually(() => seen.sourceReturned === 2)).toBe(true);
    expect(emitter.listenerCount('tick')).toBe(0);
    expect((getEventListeners(client.signal, 'abort') as unknown[]).length).toBeLessThanOrEqual(listening);
  });

  it('aborts when the source finishes or the consumer stops, leaving no listener on the call signal', async () => {
    const finite = t.router({
      s: t.procedure.use(auth.withScopes('me')).subscription(async function* ({ ctx }) {
        seen.signals.push(streamSignalOf(ctx));
        yield 1;
        yield 2;
      }),
    });
    for (const stopEarly of [false, true]) {
      reset();
      const call = new AbortController();
      const listening = (getEventListeners(call.signal, 'abort') as unknown[]).length;
      const stream = await t.createCallerFactory(finite)({ headers: { authorization: `Bearer ${table.issue(['me'])}` } }, { signal: call.signal }).s();
      for await (const _ of stream) if (stopEarly) break;
      expect(seen.signals[0]!.aborted).toBe(true);
      expect((getEventListeners(call.signal, 'abort') as unknown[]).length).toBe(listening);
    }
  });

  it('aborts when the resolver fails or returns no stream', async () => {
    const failing = t.router({
      throws: t.procedure.use(auth.withScopes('me')).subscription(({ ctx }) => {
        seen.signals.push(streamSignalOf(ctx));
        throw new TRPCError({ code: 'NOT_FOUND' });
      }),
      noStream: t.procedure.use(auth.withScopes('me')).subscription(({ ctx }) => (seen.signals.push(streamSignalOf(ctx)), 'not a stream' as never)),
    });
    reset();
    const ctx = { headers: { authorization: `Bearer ${table.issue(['me'])}` } };
    await expect(t.createCallerFactory(failing)(ctx).throws()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await t.createCallerFactory(failing)(ctx).noStream();
    expect(seen.signals.map((signal) => signal?.aborted)).toEqual([true, true]);
  });

  it('is one per call, however many security steps the chain has, and ends once', async () => {
    reset();
    const steps: (AbortSignal | undefined)[] = [];
    const spy = t.middleware(({ ctx, next }) => (steps.push(streamSignalOf(ctx)), next()));
    const chained = t.router({
      s: t.procedure
        .use(auth)
        .use(spy)
        .use(auth.requireScopes('me'))
        .use(spy)
        .use(other.withScopes('items'))
        .use(spy)
        .subscription(async function* ({ ctx }) {
          seen.signals.push(streamSignalOf(ctx));
          yield 1;
        }),
    });
    const call = new AbortController();
    const listening = (getEventListeners(call.signal, 'abort') as unknown[]).length;
    const stream = await t.createCallerFactory(chained)({ headers: { authorization: `Bearer ${table.issue(['me', 'items'])}` } }, { signal: call.signal }).s();
    expect((getEventListeners(call.signal, 'abort') as unknown[]).length).toBe(listening + 1);
    for await (const _ of stream);
    expect(steps).toHaveLength(3);
    expect(new Set([...steps, ...seen.signals]).size).toBe(1);
    expect(steps[0]).toBeInstanceOf(AbortSignal);
    expect(steps[0]!.aborted).toBe(true);
    expect((getEventListeners(call.signal, 'abort') as unknown[]).length).toBe(listening);
  });

  it('is not on the ctx of a query', async () => {
    await expect(caller(table.issue(['me'])).whoami()).resolves.toEqual({ streamSignal: false });
  });
});

// A resolver may hand back another call's stream (a `createCaller` of its own, with a service's
// token or a ctx spread from its own): the stream ends with this call's credentials all the same.
describe("another call's stream returned as this call's", () => {
  const service = table.issue(['items'], 3_600_000);
  const inner = t.createCallerFactory(
    t.router({ inner: t.procedure.use(auth.withScopes('items')).subscription(({ ctx }) => numbered(undefined, 10, streamSignalOf(ctx))) }),
  );
  const nested = t.createCallerFactory(
    t.router({
      fresh: t.procedure.use(auth.withScopes('items')).subscription(() => inner({ headers: { authorization: `Bearer ${service}` } }).inner()),
      spread: t.procedure.use(auth.withScopes('items')).subscription(({ ctx }) => inner({ ...ctx, headers: { authorization: `Bearer ${service}` } }).inner()),
    }),
  );

  /**
   * How a stream ended once `end` ran after its first event: the error's message, `'done'`, or
   * `'streaming'` when it outlived it.
   */
  const endingOf = async (opened: Promise<unknown>, end: () => void) => {
    const iterator = ((await opened) as AsyncIterable<unknown>)[Symbol.asyncIterator]();
    await iterator.next();
    end();
    const deadline = Date.now() + 1_500;
    try {
      while (Date.now() < deadline) if ((await iterator.next()).done) return 'done';
      return 'streaming';
    } catch (error) {
      return (error as Error).message;
    } finally {
      await iterator.return?.();
    }
  };

  /** How the outer call's stream ended. */
  const endOf = (path: 'fresh' | 'spread', token: string, end: () => void) => endingOf(nested({ headers: { authorization: `Bearer ${token}` } })[path](), end);

  it.each(['fresh', 'spread'] as const)('ends when the token of this call is revoked (%s ctx)', async (path) => {
    const token = table.issue(['items']);
    expect(await endOf(path, token, () => table.revoke(token))).toMatch(/not active|invalid|revoked/i);
  });

  it.each(['fresh', 'spread'] as const)('ends when the token of this call expires (%s ctx)', async (path) => {
    const token = table.issue(['items'], 300);
    expect(await endOf(path, token, () => {})).toBe('The access token expired');
  });

  // The nested call's own credential ends its stream, and so this call's, with its refusal: the
  // client hears a 401, never a stream that simply finished (which it would not resubscribe to).
  const withInner = t.createCallerFactory(
    t.router({
      fresh: t.procedure
        .use(auth.withScopes('items'))
        .input((value) => value as string)
        .subscription(({ input }) => inner({ headers: { authorization: `Bearer ${input}` } }).inner()),
      spread: t.procedure
        .use(auth.withScopes('items'))
        .input((value) => value as string)
        .subscription(({ ctx, input }) => inner({ ...ctx, headers: { authorization: `Bearer ${input}` } }).inner()),
    }),
  );
  const innerEndOf = (path: 'fresh' | 'spread', innerToken: string, end: () => void) =>
    endingOf(withInner({ headers: { authorization: `Bearer ${service}` } })[path](innerToken), end);

  it.each(['fresh', 'spread'] as const)("ends with the refusal when the nested call's token is revoked (%s ctx)", async (path) => {
    const token = table.issue(['items']);
    expect(await innerEndOf(path, token, () => table.revoke(token))).toMatch(/not active|invalid|revoked/i);
  });

  it.each(['fresh', 'spread'] as const)("ends with 401 when the nested call's token expires (%s ctx)", async (path) => {
    const token = table.issue(['items'], 300);
    expect(await innerEndOf(path, token, () => {})).toBe('The access token expired');
  });
});

describe('an observable resolver called through createCaller', () => {
  it('stays an observable, subscribed to only when someone subscribes', async () => {
    reset();
    const result = await caller(table.issue(['me'], 300)).ticks();
    expect(typeof result.subscribe).toBe('function');
    await sleep(400); // past the expiry, never consumed
    expect(seen).toMatchObject({ subscribed: 0, tornDown: 0 });
  });

  it('ends with the expired error at the expiry, and tears its source down', async () => {
    reset();
    const result = await caller(table.issue(['me'], 300)).ticks();
    const values: number[] = [];
    const error = await new Promise((resolve) => result.subscribe({ next: (value) => values.push(value), error: resolve, complete: () => resolve('completed') }));
    expect(error).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    expect(values.length).toBeGreaterThan(5);
    expect(seen).toMatchObject({ subscribed: 1, tornDown: 1 });
  });

  it('tears its source down when unsubscribed, and calls the observer no more', async () => {
    reset();
    const result = await caller(table.issue(['me'])).ticks();
    const calls: string[] = [];
    const subscription = result.subscribe({ next: () => calls.push('next'), error: () => calls.push('error'), complete: () => calls.push('complete') });
    await eventually(() => calls.length >= 2);
    subscription.unsubscribe();
    const count = calls.length;
    await sleep(50);
    expect(seen).toMatchObject({ subscribed: 1, tornDown: 1 });
    expect(seen.signals[0]!.aborted).toBe(true);
    expect(calls).toHaveLength(count);
    expect(calls.every((call) => call === 'next')).toBe(true);
  });

  it('can be iterated too, and converts its source only then', async () => {
    reset();
    const result = (await caller(table.issue(['me'])).ticks()) as unknown as AsyncIterable<number>;
    expect(seen.subscribed).toBe(0);
    const values: number[] = [];
    for await (const value of result) if (values.push(value) === 3) break;
    expect(values).toEqual([1, 2, 3]);
    expect(seen).toMatchObject({ subscribed: 1, tornDown: 1 });
  });
});

describe('what no timer could honour', () => {
  it('recheckInterval above 2³¹ − 1 ms (setTimeout would run it after 1 ms) is refused when the reader is created', () => {
    const create = (recheckInterval: number) => () => oauth2PasswordBearer({ tokenUrl: 'token', verify: table.verify, recheckInterval });
    expect(create(2 ** 31 - 1)).not.toThrow();
    expect(create(2 ** 31)).toThrow(TypeError);
    expect(create(30 * 24 * 3600 * 1000)).toThrow(/recheckInterval must be a positive whole number of milliseconds, at most 2147483647/);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, '1700000000'])('a principal whose expiresAt is %s is a fault of the verifier: no stream opens', async (expiresAt) => {
    const verify = async () => ({ scopes: ['me'], expiresAt }) as unknown as Principal;
    const reader = oauth2PasswordBearer({ tokenUrl: 'token', scopes: SCOPES, verify });
    let opened = 0;
    const opening = t.router({
      s: t.procedure.use(reader.withScopes('me')).subscription(async function* () {
        opened++;
        yield 1;
      }),
    });
    await expect(t.createCallerFactory(opening)({ headers: { authorization: 'Bearer abc' } }).s()).rejects.toMatchObject({
      code: 'INTERNAL_SERVER_ERROR',
      message: 'The token verifier failed',
    });
    expect(opened).toBe(0);
  });
});
