/**
 * A recheck that never settles: a verifier with no timeout of its own, whose endpoint hangs, asked
 * again while a stream runs (`recheckInterval`). The stream must not run on a credential nobody
 * confirms, and a hanging recheck must not hold off every later one: by the time the next recheck
 * is due, the stream ends with a 503 and the hanging recheck's signal aborts. A recheck that is
 * slow but settles within the interval leaves the stream running. See
 * docs/contract.md#subscriptions.
 */
import { once } from 'node:events';
import { initTRPC, TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { oauth2PasswordBearer, type Principal, type VerifyOptions } from '../src/index.js';
import { record, serveStreams, streamClient, TRANSPORTS, type StreamServers } from './support/streams.js';

vi.setConfig({ testTimeout: 30_000 });

const INTERVAL = 150;

/** The signals of the rechecks asked with `fresh`, by token. */
const rechecks = new Map<string, AbortSignal[]>();

/**
 * `hangs-…` tokens: a recheck never settles. `slow-…` tokens: a recheck settles after a third of
 * the interval. The first verification of either answers at once.
 */
const verify = (token: string, options?: VerifyOptions): Promise<Principal> => {
  const principal: Principal = { scopes: ['me'] };
  if (options?.fresh !== true) return Promise.resolve(principal);
  const signal = options.signal!;
  rechecks.set(token, [...(rechecks.get(token) ?? []), signal]);
  if (token.startsWith('hangs-')) return new Promise<Principal>(() => undefined);
  return new Promise<Principal>((resolve) => setTimeout(() => resolve(principal), INTERVAL / 3));
};

const t = initTRPC.context<{ req?: unknown; info?: unknown; headers?: Record<string, string> }>().create();
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Read me' }, verify, recheckInterval: INTERVAL });

/** The `ctx.streamSignal` of every stream opened, by token. */
const signals = new Map<string, AbortSignal>();
const router = t.router({
  /** One event, then waits for the end on `ctx.streamSignal`. */
  waiting: t.procedure.use(auth.withScopes('me')).subscription(async function* ({ ctx }) {
    const ended = ctx.streamSignal!;
    signals.set(ctx.token, ended);
    yield 'opened';
    if (!ended.aborted) await once(ended, 'abort');
  }),
});

let servers: StreamServers;
beforeAll(async () => {
  servers = await serveStreams(router);
});
afterAll(() => servers.close());

let serial = 0;

describe('a recheck that never settles', () => {
  it('ends the stream of a createCaller caller with a 503 once the next recheck is due, aborting the recheck', async () => {
    const token = `hangs-${++serial}`;
    const opened = Date.now();
    const stream = await t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } }).waiting();
    const events: unknown[] = [];
    const error = await (async () => {
      for await (const event of stream) events.push(event);
    })().catch((e: unknown) => e);
    expect(events).toEqual(['opened']);
    expect(error).toBeInstanceOf(TRPCError);
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'The token verifier did not answer a recheck in time' });
    // One recheck at the first interval, left hanging one more.
    expect(Date.now() - opened).toBeGreaterThanOrEqual(2 * INTERVAL - 20);
    expect(rechecks.get(token)).toHaveLength(1);
    expect(rechecks.get(token)![0]!.aborted).toBe(true);
    expect(signals.get(token)!.reason).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it.each(TRANSPORTS)('ends the stream over %s with a 503, the hanging recheck aborted', async (transport) => {
    const token = `hangs-${++serial}`;
    const { client, close } = streamClient<typeof router>(servers, transport, { authorization: () => `Bearer ${token}` });
    const recorded = record<string>((input, opts) => client.waiting.subscribe(input, opts));
    await recorded.received(1);
    await vi.waitFor(() => expect(signals.get(token)?.aborted).toBe(true), { timeout: 5000, interval: 20 });
    expect(signals.get(token)!.reason).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: 'The token verifier did not answer a recheck in time' });
    expect(rechecks.get(token)).toHaveLength(1);
    expect(rechecks.get(token)![0]!.aborted).toBe(true);
    if (transport === 'ws') expect(await recorded.ended).toMatchObject({ code: 'SERVICE_UNAVAILABLE', httpStatus: 503 });
    recorded.stop();
    await close();
    expect(recorded.events).toEqual(['opened']);
  });
});

describe('a recheck that is slow but settles within the interval', () => {
  it('leaves the stream running, rechecked again and again', async () => {
    const token = `slow-${++serial}`;
    const stream = await t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } }).waiting();
    const iterator = stream[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ value: 'opened', done: false });
    await vi.waitFor(() => expect(rechecks.get(token)?.length).toBeGreaterThanOrEqual(4), { timeout: 5000, interval: 20 });
    expect(signals.get(token)!.aborted).toBe(false);
    await iterator.return?.();
    expect(signals.get(token)!.aborted).toBe(true);
    expect(signals.get(token)!.reason).not.toBeInstanceOf(TRPCError);
  });
});
