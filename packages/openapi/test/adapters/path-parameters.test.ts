/**
 * docs/contract.md#path-parameters: on both REST faces a path parameter reaches the procedure
 * percent-decoded, as the client encoded it (`/users/al%40ice` is `al@ice`), once; one that is not
 * percent-encoded UTF-8 is a 400 before the procedure, and its security, runs. The query and the
 * body are left as trpc-to-openapi reads them.
 */
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import { createProcedureCache, type OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_FACES, serveFaces, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const auth = oauth2PasswordBearer({ tokenUrl: '/token', verify: async (token) => ({ subject: token, scopes: [] }) });
const seen: unknown[] = [];
const router = t.router({
  users: t.router({
    get: t.procedure
      .meta({ openapi: { method: 'GET', path: '/users/{name}', protect: false } })
      .input(z.object({ name: z.string(), q: z.string().optional() }))
      .output(z.string())
      .query(({ input }) => (seen.push(input), input.name)),
    rename: t.procedure
      .meta({ openapi: { method: 'PUT', path: '/users/{name}/{to}', protect: false } })
      .input(z.object({ name: z.string(), to: z.string(), note: z.string() }))
      .output(z.object({ name: z.string(), to: z.string(), note: z.string() }))
      .mutation(({ input }) => input),
  }),
  item: t.procedure
    .meta({ openapi: { method: 'GET', path: '/items/{id}' } })
    .use(auth)
    .input(z.object({ id: z.number() }))
    .output(z.number())
    .query(({ input }) => input.id),
  // trpc-to-openapi reads an array schema's element as a parameter's type, and hands a GET's
  // parameter of an array schema on as a one-value array.
  tags: t.procedure
    .meta({ openapi: { method: 'GET', path: '/tags/{tags}', protect: false } })
    .input(z.object({ tags: z.array(z.string()) }))
    .output(z.array(z.string()))
    .query(({ input }) => (seen.push(input), input.tags)),
  plain: t.procedure
    .meta({ openapi: { method: 'GET', path: '/plain', protect: false } })
    .input(z.object({ q: z.string() }))
    .output(z.string())
    .query(({ input }) => input.q),
});

let running: Record<(typeof REST_FACES)[number], RunningFace>;
beforeAll(async () => {
  running = (await serveFaces(router, REST_FACES)) as typeof running;
});
afterAll(() => Promise.all(Object.values(running).map((face) => face.close())));

const get = async (face: RunningFace, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${face.origin}/api${path}`, init);
  return { status: response.status, body: (await response.json()) as unknown };
};

describe.each(REST_FACES)('on the %s face', (name) => {
  const face = () => running[name];

  it.each([
    ['al%40ice', 'al@ice'],
    ['a%20b', 'a b'],
    ['caf%C3%A9', 'café'],
    ['caf%c3%a9', 'café'],
    ['a%2Fb', 'a/b'],
    ['a+b', 'a+b'],
    ['%2541', '%41'],
    ['plain', 'plain'],
  ])('%s reaches the procedure as %j', async (sent, value) => {
    expect(await get(face(), `/users/${sent}`)).toEqual({ status: 200, body: value });
  });

  it('decodes every parameter of the path, and leaves the query and the body as they were read', async () => {
    seen.length = 0;
    expect(await get(face(), '/users/a%26b?q=x%2541')).toEqual({ status: 200, body: 'a&b' });
    expect(seen).toEqual([{ name: 'a&b', q: 'x%41' }]);
    const renamed = await get(face(), '/users/a%20b/c%2Fd', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ note: '%41' }) });
    expect(renamed).toEqual({ status: 200, body: { name: 'a b', to: 'c/d', note: '%41' } });
    expect(await get(face(), '/plain?q=%2541')).toEqual({ status: 200, body: '%41' });
  });

  it('a parameter of an array schema is decoded too, and refused when malformed', async () => {
    expect(await get(face(), '/tags/a%20b')).toEqual({ status: 200, body: ['a b'] });
    expect(await get(face(), '/tags/a%20b?tags=c&tags=d')).toEqual({ status: 200, body: ['a b'] });
    seen.length = 0;
    const answer = await get(face(), '/tags/%FF');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'BAD_REQUEST', message: 'Path parameter "tags" is not percent-encoded UTF-8' });
    expect(seen).toEqual([]);
  });

  it('a decoded parameter is coerced as the input schema says', async () => {
    expect(await get(face(), '/items/%34%32', { headers: { authorization: 'Bearer alice' } })).toEqual({ status: 200, body: 42 });
  });

  it.each(['%E0%A4%A', '%FF', '%C3%28', 'a%ZZ', '%'])('%s, not percent-encoded UTF-8, is a 400 naming the parameter, never U+FFFD', async (sent) => {
    seen.length = 0;
    const answer = await get(face(), `/users/${sent}`);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'BAD_REQUEST', message: 'Path parameter "name" is not percent-encoded UTF-8' });
    expect(seen).toEqual([]);
  });

  it('any value a client encodes as a path segment comes back as that value', async () => {
    // Every kind of character a value may hold: separators, escapes, spaces, astral and combining.
    const value = fc.string({ unit: fc.constantFrom('a', 'Z', '0', '/', '%', '+', ' ', '?', '#', '&', '=', '.', ':', '@', '\\', '"', 'é', 'e\u0301', '漢', '😀', '%41', '%2F'), minLength: 1, maxLength: 10 });
    await fc.assert(
      fc.asyncProperty(value, async (sent) => {
        // `.` and `..` alone are dot segments: a client's URL parser resolves them before sending.
        fc.pre(sent !== '.' && sent !== '..');
        expect(await get(face(), `/users/${encodeURIComponent(sent)}`)).toEqual({ status: 200, body: sent });
      }),
      { numRuns: 150 },
    );
  });

  it('refuses a malformed parameter before the procedure’s security runs', async () => {
    expect((await get(face(), '/items/%FF')).status).toBe(400);
    expect((await get(face(), '/items/42')).status).toBe(401);
  });
});

// The decoding above assumes trpc-to-openapi hands parameters on as the path writes them; the
// handlers ask its matcher so when they start. If a version of it decodes them, this fails, and
// the handlers leave its parameters as they are rather than decode them twice.
it('trpc-to-openapi still hands path parameters on percent-encoded', () => {
  expect(createProcedureCache(router as never)('GET', '/users/al%40ice')?.pathInput).toEqual({ name: 'al%40ice' });
});
