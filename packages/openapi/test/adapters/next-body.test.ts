import { createServer, type IncomingMessage, type Server } from 'node:http';
import { text } from 'node:stream/consumers';
import fc from 'fast-check';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { MULTIPART, URLENCODED } from '../../src/index.js';
import { createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';

// A request no REST operation serves goes to `next` as it came, its body unread: the handler
// after it (an upload route, another API) reads it (docs/contract.md#body-limits). Mounted as
// Express and Connect mount a handler, `(req, res, next)`, with and without a base path.

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
const router = t.router({
  echo: t.procedure
    .meta({ openapi: { method: 'POST', path: '/echo' } })
    .input(z.object({ a: z.string() }))
    .output(z.object({ a: z.string() }))
    .mutation(({ input }) => input),
  items: t.procedure
    .meta({ openapi: { method: 'GET', path: '/items' } })
    .input(z.void())
    .output(z.array(z.string()))
    .query(() => ['a']),
});

/** The next handler: answers 299 with what it read of the body. */
const nextHandler = (req: IncomingMessage, res: import('node:http').ServerResponse) => async () => {
  const body = await text(req);
  res.statusCode = 299;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ body }));
};

const servers: Server[] = [];
const origins: Record<'root' | 'api', string> = { root: '', api: '' };
beforeAll(async () => {
  for (const [name, basePath] of [['root', undefined], ['api', '/api']] as const) {
    const rest = createOAuth2OpenApiHttpHandler({ router, createContext: ({ req }) => ({ req }), maxBodySize: 1000, ...(basePath ? { basePath } : {}) });
    const server = createServer((req, res) => void rest(req, res, nextHandler(req, res)));
    servers.push(server);
    origins[name] = `http://127.0.0.1:${await listening(server.listen(0, '127.0.0.1'))}`;
  }
});
afterAll(() => Promise.all(servers.map((server) => closing(server))));

const BODIES = [
  ['application/json', '{"file":"report.pdf","size":3}'],
  [URLENCODED, 'name=report.pdf&size=3'],
  [MULTIPART + '; boundary=b', '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--b--\r\n'],
  ['text/plain', 'plain text'],
  // Larger than the REST handler's limit: the handler after it has its own.
  ['application/json', `"${'x'.repeat(3000)}"`],
] as const;

describe.each(['root', 'api'] as const)('mounted %s, a request no operation serves', (mount) => {
  const prefix = mount === 'api' ? '/api' : '';
  it.each(BODIES)('reaches next with its %s body unread', async (type, body) => {
    const response = await fetch(`${origins[mount]}${prefix}/upload`, { method: 'POST', headers: { 'content-type': type }, body });
    expect(response.status).toBe(299);
    expect(await response.json()).toEqual({ body });
  });

  it('reaches next with the body of any method, HEAD and GET aside', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'), fc.constantFrom(...BODIES), fc.constantFrom('/upload', '/echo/x', '/items/1'), async (method, [type, body], path) => {
        const response = await fetch(`${origins[mount]}${prefix}${path}`, { method, headers: { 'content-type': type }, body });
        expect(response.status).toBe(299);
        expect(await response.json()).toEqual({ body });
      }),
      { numRuns: 40 },
    );
  });

  it('still serves its operations, and answers 405 where operations of other methods are', async () => {
    const served = await fetch(`${origins[mount]}${prefix}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":"b"}' });
    expect([served.status, await served.json()]).toEqual([200, { a: 'b' }]);
    const refused = await fetch(`${origins[mount]}${prefix}/echo`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"a":"b"}' });
    expect([refused.status, refused.headers.get('allow')]).toEqual([405, 'POST']);
    const head = await fetch(`${origins[mount]}${prefix}/items`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });
});

describe('mounted below /api, a request outside the base path', () => {
  it.each(BODIES)('reaches next with its %s body unread', async (type, body) => {
    const response = await fetch(`${origins.api}/other/upload`, { method: 'POST', headers: { 'content-type': type }, body });
    expect(response.status).toBe(299);
    expect(await response.json()).toEqual({ body });
  });
});

// A handler after it that answers as the body arrives (its head first, then the body it reads)
// gets the request as it came: no listener of this handler takes the body's chunks, nor closes the
// connection it keeps (docs/contract.md#body-limits).
describe('a chunked request no operation serves', () => {
  let origin = '';
  let server: Server;
  beforeAll(async () => {
    const rest = createOAuth2OpenApiHttpHandler({ router, createContext: ({ req }) => ({ req }), maxBodySize: 1000 });
    server = createServer((req, res) =>
      void rest(req, res, async () => {
        res.writeHead(299, { 'content-type': 'text/plain' });
        await new Promise((resolve) => setTimeout(resolve, 20));
        res.end(await text(req));
      }),
    );
    origin = `http://127.0.0.1:${await listening(server.listen(0, '127.0.0.1'))}`;
  });
  afterAll(() => closing(server));

  it('reaches next with its whole body, read after the head is sent', async () => {
    const body = 'x'.repeat(5000);
    const response = await fetch(`${origin}/upload`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: new Blob([body]).stream(), duplex: 'half' } as RequestInit);
    expect(response.status).toBe(299);
    const connection = response.headers.get('connection');
    expect(await response.text()).toBe(body);
    expect(connection).not.toBe('close');
  });
});
