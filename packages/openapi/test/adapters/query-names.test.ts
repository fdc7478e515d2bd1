/**
 * A query parameter named as a property every object has (`constructor`, `toString`,
 * `__proto__`) is read as any other name, never a 500: trpc-to-openapi 3.3 collects a GET's or a
 * DELETE's query into a plain object by name, and a name `Object.prototype` has there is taken
 * for that object's own array of values (`parsedQs[key].push is not a function`). Nothing the
 * client writes in a URL is a fault of the server (docs/contract.md#path-parameters reads the
 * query as trpc-to-openapi reads it; the tRPC faces refuse such names with a 400, never a 500).
 */
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuth2OpenApiFetchHandler } from '../../src/adapters/fetch.js';
import { REST_FACES, serveFaces, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
// Loose: whatever names the query has reach the procedure, as they were read.
const query = z.looseObject({ q: z.string().optional() });
const router = t.router({
  list: t.procedure
    .meta({ openapi: { method: 'GET', path: '/list', protect: false } })
    .input(query)
    .output(z.record(z.string(), z.string()))
    .query(({ input }) => ({ ...input }) as Record<string, string>),
  remove: t.procedure
    .meta({ openapi: { method: 'DELETE', path: '/items/{id}', protect: false } })
    .input(z.looseObject({ id: z.string() }))
    .output(z.record(z.string(), z.string()))
    .mutation(({ input }) => ({ ...input }) as Record<string, string>),
});

let running: Record<(typeof REST_FACES)[number], RunningFace>;
beforeAll(async () => {
  running = (await serveFaces(router, REST_FACES)) as typeof running;
});
afterAll(() => Promise.all(Object.values(running).map((face) => face.close())));

const call = async (face: RunningFace, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${face.origin}/api${path}`, init);
  return { status: response.status, body: (await response.json()) as unknown };
};

describe.each(REST_FACES)('on the %s face', (name) => {
  const face = () => running[name];

  it.each([
    ['constructor=x&q=a', { constructor: 'x', q: 'a' }],
    ['toString=x', { toString: 'x' }],
    ['hasOwnProperty=x&q=a', { hasOwnProperty: 'x', q: 'a' }],
    // `__proto__` cannot be a key of the object trpc-to-openapi reads the query into: it is left out.
    ['__proto__=x&q=a', { q: 'a' }],
    ['__proto__=x&__proto__=y&q=a', { q: 'a' }],
  ])('GET /list?%s is read as any query, never a 500', async (search, input) => {
    expect(await call(face(), `/list?${search}`)).toEqual({ status: 200, body: input });
  });

  it('so is the query of a DELETE, and of a HEAD', async () => {
    expect(await call(face(), '/items/a%20b?constructor=x', { method: 'DELETE' })).toEqual({ status: 200, body: { id: 'a b', constructor: 'x' } });
    expect((await fetch(`${face().origin}/api/list?constructor=x`, { method: 'HEAD' })).status).toBe(200);
  });
});

// A runtime may hand the fetch face a request of its own that takes no new property (head.test.ts
// answers a HEAD on one as its GET); trpc-to-openapi keeps a GET's or DELETE's query on the
// request it reads, so such a request is read as a copy that takes it, never a 500.
describe.each([
  ['sealed', (req: Request) => Object.seal(req)],
  ['frozen', (req: Request) => Object.freeze(req)],
  ['not extensible', (req: Request) => Object.preventExtensions(req)],
] as const)('the fetch face, given a %s request', (_name, seal) => {
  it.each([
    ['GET', 'http://x.test/list?q=a&constructor=x', { q: 'a', constructor: 'x' }],
    ['GET', 'http://x.test/api/list?q=a', { q: 'a' }],
    ['DELETE', 'http://x.test/items/a%20b?q=a', { id: 'a b', q: 'a' }],
  ] as const)('reads the input of a %s %s', async (method, url, input) => {
    const req = seal(new Request(url, { method }));
    const basePath = url.includes('/api/') ? ('/api' as const) : undefined;
    const response = await createOAuth2OpenApiFetchHandler({ router, req, basePath, createContext: ({ req }) => ({ req }) });
    expect({ status: response.status, body: await response.json() }).toEqual({ status: 200, body: input });
    expect(req.method).toBe(method);
  });
});
