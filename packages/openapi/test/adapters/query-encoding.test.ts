/**
 * A REST query whose percent-escapes are not UTF-8 (`?q=%FF`) is refused with a 400 that says
 * so, on both REST faces, for GET, HEAD and DELETE, before the procedure runs: read as
 * `URLSearchParams` reads it, `%FF` and `%FE` would both reach the input as U+FFFD
 * (docs/contract.md#path-parameters). Any query of valid escapes reaches the input decoded.
 */
import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_FACES, serveFaces, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
let ran = 0;
const query = z.looseObject({ q: z.string().optional() });
const router = t.router({
  list: t.procedure
    .meta({ openapi: { method: 'GET', path: '/list', protect: false } })
    .input(query)
    .output(z.record(z.string(), z.string()))
    .query(({ input }) => {
      ran += 1;
      return { ...input } as Record<string, string>;
    }),
  remove: t.procedure
    .meta({ openapi: { method: 'DELETE', path: '/items/{id}', protect: false } })
    .input(z.looseObject({ id: z.string() }))
    .output(z.record(z.string(), z.string()))
    .mutation(({ input }) => {
      ran += 1;
      return { ...input } as Record<string, string>;
    }),
});

let running: Record<(typeof REST_FACES)[number], RunningFace>;
beforeAll(async () => {
  running = (await serveFaces(router, REST_FACES)) as typeof running;
});
afterAll(() => Promise.all(Object.values(running).map((face) => face.close())));

const MESSAGE = { message: 'The query is not valid percent-encoded UTF-8', code: 'BAD_REQUEST' };

describe.each(REST_FACES)('on the %s face', (name) => {
  const face = () => running[name];
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${face().origin}/api${path}`, init);
    const text = await response.text();
    // The message and the code: tRPC adds the stack outside production.
    const body = text === '' ? undefined : (JSON.parse(text) as { message?: unknown; code?: unknown });
    return { status: response.status, body: body && (body.code === undefined ? body : { message: body.message, code: body.code }) };
  };

  it.each(['q=%FF', 'q=al%FFice', 'q=%C3', 'q=%C3%28', 'q=%ED%A0%80', 'q=%F4%90%80%80', '%FF=x', 'q=a&r=%C0%AF', 'q=%e9'])(
    'GET /list?%s is a 400 that says the query is not UTF-8; the procedure never runs',
    async (search) => {
      ran = 0;
      expect(await call(`/list?${search}`)).toEqual({ status: 400, body: MESSAGE });
      expect(ran).toBe(0);
      const errors = face().errors.splice(0);
      expect(errors.map((error) => error.code)).toEqual(['BAD_REQUEST']);
    },
  );

  it('refuses it on a DELETE and a HEAD too', async () => {
    ran = 0;
    expect(await call('/items/a?q=%FF', { method: 'DELETE' })).toEqual({ status: 400, body: MESSAGE });
    expect((await fetch(`${face().origin}/api/list?q=%FF`, { method: 'HEAD' })).status).toBe(400);
    expect(ran).toBe(0);
    face().errors.splice(0);
  });

  it.each([
    ['q=%C3%A9', 'é'],
    ['q=%F0%9F%98%80', '😀'],
    ['q=100%', '100%'],
    ['q=%zz', '%zz'],
    ['q=a+b', 'a b'],
    ['q=%25FF', '%FF'],
  ])('reads GET /list?%s as it always did', async (search, q) => {
    expect(await call(`/list?${search}`)).toEqual({ status: 200, body: { q } });
  });

  it('refuses a query exactly when one of its escapes is not UTF-8, and reads any other as decoded (property)', async () => {
    const byte = fc.integer({ min: 0, max: 255 });
    const escape = byte.map((b) => `%${b.toString(16).padStart(2, '0')}`);
    const piece = fc.oneof(escape, fc.constantFrom('a', 'Z', '0', '-', '%', '%z', '~'));
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 12 }), async (pieces) => {
        const value = pieces.join('');
        let expected: string | undefined;
        try {
          expected = value.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => decodeURIComponent(run));
        } catch {
          expected = undefined;
        }
        const result = await call(`/list?q=${value}`);
        face().errors.splice(0);
        if (expected === undefined) expect(result).toEqual({ status: 400, body: MESSAGE });
        else expect(result).toEqual({ status: 200, body: { q: expected } });
      }),
      { numRuns: 60 },
    );
  });
});
