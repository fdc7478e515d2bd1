/**
 * A request target's fragment is no part of its query: `/list?q=a#x&q=b` has the query `q=a`,
 * `/list#x?q=a` none. A client should not send one (RFC 9112 §3.2), but Node's parser and the
 * fetch runtimes pass it on in the URL, and the REST faces read the query of a GET, HEAD or DELETE
 * as trpc-to-openapi reads it, from the URL's `searchParams` (docs/contract.md#path-parameters),
 * never the fragment's text as a value or as more parameters. A second `?` (`??a=1`) is part of
 * the first name (`?a`), as the URL reads it.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REST_FACES, serveFaces, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const router = t.router({
  list: t.procedure
    .meta({ openapi: { method: 'GET', path: '/list', protect: false } })
    .input(z.looseObject({}))
    .output(z.unknown())
    .query(({ input }) => input),
  remove: t.procedure
    .meta({ openapi: { method: 'DELETE', path: '/items', protect: false } })
    .input(z.looseObject({}))
    .output(z.unknown())
    .mutation(({ input }) => input),
});

let running: Record<(typeof REST_FACES)[number], RunningFace>;
beforeAll(async () => {
  running = (await serveFaces(router, REST_FACES)) as typeof running;
});
afterAll(() => Promise.all(Object.values(running).map((face) => face.close())));

/** The answer to `method target` sent as it is (fetch would drop the fragment). */
function send(origin: string, method: string, target: string): Promise<{ status: number; body: unknown }> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('end', () => {
      const [head, ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(head!.split(' ')[1]), body: JSON.parse(rest.join('\r\n\r\n')) as unknown });
    });
    socket.write(`${method} ${target} HTTP/1.1\r\nHost: api.example\r\nConnection: close\r\n\r\n`);
  });
}

/** The input trpc-to-openapi makes of a URL's query: each name's value, several as an array. */
function queryInput(target: string): Record<string, unknown> {
  const input: Record<string, string[]> = {};
  new URL(target, 'http://api.example').searchParams.forEach((value, name) => (input[name] ??= []).push(value));
  return Object.fromEntries(Object.entries(input).map(([name, values]) => [name, values.length === 1 ? values[0] : values]));
}

// Query text and fragment text of characters a target may carry, `?`, `&`, `=` and `#` included.
const text = fc.string({ unit: fc.constantFrom('a', 'b', 'q', '1', '=', '&', '?', '#', '%41', '+', '/'), maxLength: 12 });

describe.each(REST_FACES)('on the %s face', (face) => {
  it('reads the query of a target with a fragment as its URL has it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'DELETE'), text, fc.option(text, { nil: undefined }), async (method, query, fragment) => {
        const target = `/api/${method === 'GET' ? 'list' : 'items'}?${query}${fragment === undefined ? '' : `#${fragment}`}`;
        const { status, body } = await send(running[face].origin, method, target);
        expect(status).toBe(200);
        expect(body).toEqual(queryInput(target));
      }),
      { numRuns: 60 },
    );
  });

  it('reads no query from the fragment of a target without one, and a second `?` as part of the first name', async () => {
    expect(await send(running[face].origin, 'GET', '/api/list??a=1')).toEqual({ status: 200, body: { '?a': '1' } });
    expect(await send(running[face].origin, 'GET', '/api/list#x?q=a')).toEqual({ status: 200, body: {} });
    expect(await send(running[face].origin, 'GET', '/api/list?q=a#x&q=b')).toEqual({ status: 200, body: { q: 'a' } });
    expect(await send(running[face].origin, 'DELETE', '/api/items?q=a#x')).toEqual({ status: 200, body: { q: 'a' } });
  });
});
