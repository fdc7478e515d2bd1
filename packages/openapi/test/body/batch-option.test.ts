/**
 * A tRPC handler's `maxBatchSize` is a whole number of calls (or `Infinity`, no limit): any other
 * value is a `TypeError` where it is given, never a limit that refuses nothing. tRPC compares a
 * batch's length with it, and `NaN` (`Number(process.env.MAX_BATCH)` unset) compares false with
 * every length: a batch of any size would run (docs/contract.md#body-limits).
 */
import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { batchLimit, DEFAULT_MAX_BATCH_SIZE } from '../../src/adapters/batch.js';
import { createOAuth2HTTPHandler } from '../../src/adapters/create-oauth2-http-handler.js';
import { oauth2FetchRequestHandler } from '../../src/adapters/oauth2-fetch-request-handler.js';

const t = initTRPC.create();
let calls = 0;
const router = t.router({
  ping: t.procedure.query(() => {
    calls += 1;
    return 'pong';
  }),
});
const WRONG = [Number.NaN, -1, 2.5, Number.NEGATIVE_INFINITY];
const batchOf = (size: number) => `http://127.0.0.1/trpc/${Array.from({ length: size }, () => 'ping').join(',')}?batch=1`;

describe('maxBatchSize', () => {
  it.each(WRONG)('%s is refused by both tRPC handlers, and no call of a batch runs', async (maxBatchSize) => {
    calls = 0;
    expect(() => createOAuth2HTTPHandler({ router, maxBatchSize })).toThrow(/maxBatchSize must be a whole number of calls/);
    const req = new Request(batchOf(DEFAULT_MAX_BATCH_SIZE + 5));
    await expect(oauth2FetchRequestHandler({ router, req, endpoint: '/trpc', maxBatchSize })).rejects.toThrow(/maxBatchSize must be a whole number of calls/);
    expect(calls).toBe(0);
  });

  it('is the default when not given, and as given otherwise', async () => {
    expect(batchLimit(undefined)).toBe(DEFAULT_MAX_BATCH_SIZE);
    expect(batchLimit(0)).toBe(0);
    expect(batchLimit(50)).toBe(50);
    expect(batchLimit(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    const response = await oauth2FetchRequestHandler({ router, req: new Request(batchOf(3)), endpoint: '/trpc', maxBatchSize: 2 });
    expect(response.status).toBe(400);
  });
});
