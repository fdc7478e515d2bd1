/**
 * The tRPC fetch entry alone (`@trpc-oauth2/openapi/adapters/trpc-fetch`) bundles for a worker
 * target with no Node built-in anywhere in its graph, where `/adapters/fetch` (which also holds
 * the REST handler, and so trpc-to-openapi and its Node adapters) does not; and the bundle serves
 * verified calls inside edge-runtime.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWithoutNode } from './bundle.js';
import { serveEdgeFunction, type EdgeFunction } from './edge-function.js';

let edge: EdgeFunction;

beforeAll(async () => {
  edge = await serveEdgeFunction(await bundleWithoutNode(new URL('app/trpc-worker.ts', import.meta.url).pathname));
}, 30_000);

afterAll(() => edge?.close());

describe('the tRPC fetch entry, bundled without Node built-ins', () => {
  it('answers a verified call, and refuses one without a token', async () => {
    const good = await fetch(new URL('/trpc/me', edge.url), { headers: { authorization: `Bearer ${await edge.sign('me')}` } });
    expect(good.status).toBe(200);
    expect(await good.json()).toEqual({ result: { data: { subject: 'alice' } } });
    const none = await fetch(new URL('/trpc/me', edge.url));
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('where the entry with the REST handler does not bundle so', async () => {
    const app = new URL('app/worker.ts', import.meta.url).pathname;
    await expect(bundleWithoutNode(app)).rejects.toThrow(/imports the Node builtin/);
  });
});
