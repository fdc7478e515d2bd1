/**
 * A protected stream whose end the application's own code fails: the error factory a stream ends
 * with at its token's expiry, and the source's `return()`, run in a timer, outside any request.
 * One that throws must not escape as an uncaught exception, which ends a Node server's process
 * (and leaves the stream running until then): a throwing factory ends the stream with a 500, as
 * it would fail the opening check; a throwing `return()` leaves the stream ended as it was.
 * See docs/contract.md#subscriptions.
 */
import { once } from 'node:events';
import { initTRPC, TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { oauth2PasswordBearer } from '../src/index.js';
import { record, serveStreams, streamClient, TRANSPORTS, type StreamServers } from './support/streams.js';
import { TokenTable } from './support/streams-router.js';

vi.setConfig({ testTimeout: 30_000 });

const t = initTRPC.context<{ req?: unknown; info?: unknown; headers?: Record<string, string> }>().create();
const table = new TokenTable();
const auth = oauth2PasswordBearer({
  tokenUrl: 'token',
  scopes: { me: 'Read me' },
  verify: table.verify,
  makeTokenExpiredError: () => {
    throw new Error('the expiry refusal factory failed');
  },
});

/** A reader with the default factories. */
const plain = oauth2PasswordBearer({ tokenUrl: 'token', verify: table.verify });

/** The `ctx.streamSignal` of every stream opened, by token. */
const signals = new Map<string, AbortSignal>();
const router = t.router({
  /** One event, then waits for the end on `ctx.streamSignal`: no event comes to notice the expiry. */
  waiting: t.procedure.use(auth.withScopes('me')).subscription(async function* ({ ctx }) {
    // A subscription behind a verified reader always has one.
    const ended = ctx.streamSignal!;
    signals.set(ctx.token, ended);
    yield 'opened';
    if (!ended.aborted) await once(ended, 'abort');
  }),
  /** A hand-written source whose `return()` throws at once. */
  handWritten: t.procedure.use(plain).subscription(({ ctx }) => {
    signals.set(ctx.token, ctx.streamSignal!);
    let n = 0;
    return {
      [Symbol.asyncIterator]: () => ({
        next: async () => ({ value: ++n, done: false }),
        return: () => {
          throw new Error('the source failed to stop');
        },
      }),
    };
  }),
});

let servers: StreamServers;
beforeAll(async () => {
  servers = await serveStreams(router);
});
afterAll(() => servers.close());

describe('an expiry refusal factory that throws', () => {
  it('ends the stream of a createCaller caller with a 500 carrying what it threw', async () => {
    const token = table.issue(['me'], 300);
    const stream = await t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } }).waiting();
    const events: unknown[] = [];
    const error = await (async () => {
      for await (const event of stream) events.push(event);
    })().catch((e: unknown) => e);
    expect(events).toEqual(['opened']);
    expect(error).toBeInstanceOf(TRPCError);
    expect(error).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', cause: { message: 'the expiry refusal factory failed' } });
    expect(signals.get(token)!.aborted).toBe(true);
  });

  it.each(TRANSPORTS)('ends the stream over %s at the expiry, the server still up', async (transport) => {
    const token = table.issue(['me'], 400);
    const expiresAt = Date.now() + 400;
    const { client, close } = streamClient<typeof router>(servers, transport, { authorization: () => `Bearer ${token}` });
    const recorded = record<string>((input, opts) => client.waiting.subscribe(input, opts));
    await recorded.received(1);
    // The resolver learns of the end at the expiry, with the factory's failure as the reason.
    await vi.waitFor(() => expect(signals.get(token)?.aborted).toBe(true), { timeout: 5000, interval: 20 });
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt - 20);
    expect(signals.get(token)!.reason).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', cause: { message: 'the expiry refusal factory failed' } });
    if (transport === 'ws') expect(await recorded.ended).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', httpStatus: 500 });
    recorded.stop();
    await close();
    expect(recorded.events).toEqual(['opened']);
  });
});

describe('a source whose return() throws at once', () => {
  it('ends at the expiry while its consumer holds an event, and the consumer then gets the expiry refusal', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => void uncaught.push(error);
    process.prependListener('uncaughtException', onUncaught);
    onTestFinished(() => void process.off('uncaughtException', onUncaught));
    const token = table.issue([], 200);
    const stream = (await t.createCallerFactory(router)({ headers: { authorization: `Bearer ${token}` } }).handWritten()) as AsyncIterable<number>;
    const iterator = stream[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ value: 1, done: false });
    // The consumer does not ask for the next event: the expiry ends the stream in its timer.
    await vi.waitFor(() => expect(signals.get(token)!.aborted).toBe(true), { timeout: 5000, interval: 20 });
    expect(await iterator.next().catch((e: unknown) => e)).toMatchObject({ code: 'UNAUTHORIZED', message: 'The access token expired' });
    expect(uncaught).toEqual([]);
  });
});
