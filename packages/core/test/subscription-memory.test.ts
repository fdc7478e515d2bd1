/**
 * 1,000 protected streams opened and closed (over WebSockets and Server-Sent Events, with a
 * recheck timer and an expiry timer each) leave nothing behind: no principal is reachable after
 * garbage collection, no timer is left, and the heap is as it was. See
 * docs/contract.md#subscriptions.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { initTRPC, tracked } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal } from '../src/index.js';
import { record, serveStreams, streamClient, type StreamServers, type Transport } from './support/streams.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Every principal the verifier handed out, held weakly: a reachable one was kept by someone. */
const principals: WeakRef<Principal>[] = [];
const verify = async (token: string): Promise<Principal> => {
  const principal = { subject: token, scopes: ['items'], expiresAt: Date.now() / 1000 + 3600 };
  principals.push(new WeakRef(principal));
  return principal;
};

const t = initTRPC.context<{ req: unknown; info: unknown }>().create();
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { items: 'Read items' }, verify, recheckInterval: 60_000 });
const router = t.router({
  items: t.procedure.use(auth.withScopes('items')).subscription(async function* ({ signal }) {
    for (let n = 1; !signal?.aborted; n++) {
      yield tracked(String(n), { n, payload: 'x'.repeat(256) });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }),
});

let servers: StreamServers;
beforeAll(async () => {
  servers = await serveStreams(router);
});
afterAll(() => servers.close());

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

async function settle(): Promise<number> {
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    gc();
  }
  return process.memoryUsage().heapUsed;
}

/** Opens `count` streams on `transport`, `concurrency` at a time, each closed after its first event. */
async function openAndClose(transport: Transport, count: number, concurrency: number): Promise<void> {
  const { client, close } = streamClient<typeof router>(servers, transport, { authorization: () => 'Bearer someone' });
  for (let done = 0; done < count; done += concurrency) {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, count - done) }, async () => {
        const recorded = record((input, opts) => client.items.subscribe(input, opts));
        await recorded.received(1);
        recorded.stop();
      }),
    );
  }
  await close();
}

describe('1,000 streams opened and closed', () => {
  it('leave no principal, no timer and no heap behind', async () => {
    /** 1,000 streams: most over one WebSocket (as a busy client holds them), the rest over SSE. */
    const thousandStreams = async () => {
      await openAndClose('ws', 950, 150);
      await openAndClose('sse-standalone', 50, 25);
    };
    // The same work once before measuring, so that what stays is what every run adds: modules,
    // compiled code and pools are warm, and only a leak would grow the heap again.
    await thousandStreams();
    const timersBefore = timers();
    const heapBefore = await settle();
    const handedOutBefore = principals.length;

    await thousandStreams();

    const heapAfter = await settle();
    const kept = principals.filter((ref) => ref.deref() !== undefined).length;
    expect(principals.length - handedOutBefore).toBe(1000);
    expect(kept, 'principals still reachable after every stream closed').toBe(0);
    expect(timers(), 'timers left after every stream closed').toBeLessThanOrEqual(timersBefore);
    // A leak of anything per stream (a principal, a generator, a timer) would be ≥ 1 kB × 1,000.
    expect(heapAfter - heapBefore, `heap grew by ${heapAfter - heapBefore} bytes`).toBeLessThan(1_000_000);
  }, 180_000);
});
