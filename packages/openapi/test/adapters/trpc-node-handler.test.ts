import { IncomingMessage, ServerResponse, type Server } from 'node:http';
import { connect } from 'node:net';
import { initTRPC, type TRPCError } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createOAuth2HTTPServer } from '../../src/adapters/standalone.js';

// The standalone face answers tRPC calls itself (trpc-node-handler.ts) on the request the REST
// face builds, where tRPC's adapter built its own (BENCHMARKS.md#the-standalone-face). Every case
// here is run on both, with the same options, and must answer alike: tRPC's adapter is the
// reference for what `createContext`, `onError`, `middleware`, `maxBodySize`, `responseMeta` and
// the streamed answers (JSON Lines, Server-Sent Events) do.

interface Seen {
  incoming: boolean;
  response: boolean;
  calls: number;
  path: unknown;
}

const t = initTRPC.context<{ seen: Seen; signal?: AbortSignal }>().create({ isDev: false });
let release: () => void = () => {};
const subscriptionEnded = new Map<string, boolean>();
const querySignals = new Map<string, AbortSignal>();
const router = t.router({
  hello: t.procedure.query(() => ({ hello: 'world' })),
  who: t.procedure.query(({ ctx }) => ctx.seen),
  echo: t.procedure.input(z.object({ text: z.string() })).mutation(({ input }) => input.text),
  fails: t.procedure.query(() => {
    throw new Error('a fault of the application');
  }),
  slow: t.procedure.query(async () => {
    await new Promise<void>((resolve) => (release = resolve));
    return 'late';
  }),
  wait: t.procedure.input(z.object({ id: z.string() })).query(async ({ input, signal }) => {
    querySignals.set(input.id, signal!);
    await new Promise((resolve) => signal!.addEventListener('abort', resolve, { once: true }));
    return 'aborted';
  }),
  ticks: t.procedure.input(z.object({ id: z.string() })).subscription(async function* ({ input, signal }) {
    subscriptionEnded.set(input.id, false);
    try {
      yield 'first';
      await new Promise((resolve) => signal!.addEventListener('abort', resolve, { once: true }));
    } finally {
      subscriptionEnded.set(input.id, true);
    }
  }),
});

type Face = 'ours' | "tRPC's";
const reported: Record<Face, { error: TRPCError; req: unknown }[]> = { ours: [], "tRPC's": [] };

function options(face: Face) {
  return {
    router,
    basePath: '/trpc/' as const,
    maxBodySize: 256,
    createContext: (opts: { req: unknown; res: unknown; info: { calls: readonly unknown[] }; path?: unknown }) => ({
      seen: { incoming: opts.req instanceof IncomingMessage, response: opts.res instanceof ServerResponse, calls: opts.info.calls.length, path: opts.path },
    }),
    onError: ({ error, req }: { error: TRPCError; req?: unknown }) => void reported[face].push({ error, req }),
    responseMeta: ({ paths }: { paths?: readonly string[] }) =>
      paths?.includes('hello') ? { headers: { 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'], 'x-meta': 'yes' } } : {},
    middleware: (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
      res.setHeader('x-middleware', 'ran');
      // A CORS preflight answered by the middleware, as the `cors` package answers it.
      if (req.method === 'OPTIONS') {
        res.statusCode = 204;
        res.setHeader('access-control-allow-origin', '*');
        return res.end();
      }
      if (req.url?.includes('mw=fail')) return next(new Error('the middleware failed'));
      if (req.url?.includes('mw=status')) res.statusCode = 299;
      // A middleware that rewrites the target after tRPC's adapter has cut the procedure path from it.
      if (req.url?.includes('mw=rewrite')) req.url = `/trpc/who?input=${input({})}`;
      next();
    },
  };
}

const servers = {} as Record<Face, { server: Server; origin: string }>;
beforeAll(async () => {
  for (const [face, server] of [
    ['ours', createOAuth2HTTPServer(options('ours') as never)],
    ["tRPC's", createHTTPServer(options("tRPC's") as never)],
  ] as const) {
    server.listen(0, '127.0.0.1');
    servers[face] = { server, origin: `http://127.0.0.1:${await listening(server)}` };
  }
});
afterAll(async () => {
  for (const { server } of Object.values(servers)) {
    server.closeAllConnections();
    await closing(server);
  }
});

const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));

/** Status, the body, and the headers an application sees, of `path` on `face`. */
async function answer(face: Face, path: string, init?: RequestInit) {
  const response = await fetch(`${servers[face].origin}${path}`, init);
  const body = await response.text();
  return {
    status: response.status,
    body,
    contentType: response.headers.get('content-type'),
    cookies: response.headers.getSetCookie(),
    meta: response.headers.get('x-meta'),
    middleware: response.headers.get('x-middleware'),
  };
}

/** A body in chunks (no declared length), read by tRPC's adapter within its `maxBodySize`. */
const chunked = (text: string): (() => RequestInit) => () => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: new Blob([text]).stream(),
  duplex: 'half',
} as RequestInit);

const CASES: readonly [string, string, (RequestInit | (() => RequestInit))?][] = [
  ['a query', '/trpc/hello'],
  ['a batch', `/trpc/hello,who?batch=1&input=${input({})}`],
  ['a mutation', '/trpc/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'hi' }) }],
  ['a body over maxBodySize', '/trpc/echo', chunked(JSON.stringify({ text: 'x'.repeat(300) }))],
  ['an input that fails its parser', '/trpc/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":1}' }],
  ['a path no procedure has', '/trpc/nothing'],
  ["the application's fault", '/trpc/fails'],
  ['an error the middleware passes on', '/trpc/hello?mw=fail'],
  ['a status the middleware set', '/trpc/hello?mw=status'],
  ['what createContext is given', '/trpc/who'],
  ['a target the middleware rewrites', '/trpc/hello?mw=rewrite'],
  ['a CORS preflight the middleware answers', '/trpc/hello', { method: 'OPTIONS' }],
];

describe("the standalone face answers as tRPC's adapter", () => {
  it.each(CASES)('%s', async (_name, path, init) => {
    const make = typeof init === 'function' ? init : () => init;
    const [ours, theirs] = await Promise.all([answer('ours', path, make()), answer("tRPC's", path, make())]);
    expect(ours).toEqual(theirs);
    expect(ours.middleware).toBe('ran');
  });

  it('gives createContext the Node request and response and the call, and the middleware first', async () => {
    const { body } = await answer('ours', '/trpc/who');
    expect(JSON.parse(body)).toEqual({ result: { data: { incoming: true, response: true, calls: 1, path: 'who' } } });
  });

  it("hands onError the Node request, and keeps responseMeta's every Set-Cookie", async () => {
    reported.ours.length = 0;
    const fault = await answer('ours', '/trpc/fails');
    expect(fault.status).toBe(500);
    expect(reported.ours.map(({ error, req }) => [error.message, req instanceof IncomingMessage])).toEqual([['a fault of the application', true]]);
    const { cookies, meta } = await answer('ours', '/trpc/hello');
    expect(cookies).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(meta).toBe('yes');
  });
});

describe('a method tRPC serves nothing with', () => {
  // docs/contract.md#body-limits: a 405 with `Allow`, where tRPC alone answers a 415; the
  // middleware runs first all the same, as on every other request.
  it('is refused after the middleware ran', async () => {
    reported.ours.length = 0;
    const refused = await answer('ours', '/trpc/hello', { method: 'DELETE' });
    expect([refused.status, refused.middleware]).toEqual([405, 'ran']);
    expect(JSON.parse(refused.body).error.message).toBe('DELETE requests are not supported');
    expect(reported.ours.map(({ error }) => error.code)).toEqual(['METHOD_NOT_SUPPORTED']);
  });

  it('is refused whatever the middleware passes on, as tRPC answers its own 415 before such an error', async () => {
    const [ours, theirs] = await Promise.all([answer('ours', '/trpc/hello?mw=fail', { method: 'DELETE' }), answer("tRPC's", '/trpc/hello?mw=fail', { method: 'DELETE' })]);
    expect([ours.status, ours.middleware, JSON.parse(ours.body).error.message]).toEqual([405, 'ran', 'DELETE requests are not supported']);
    expect([theirs.status, theirs.middleware, JSON.parse(theirs.body).error.message]).toEqual([415, 'ran', 'Missing content-type header']);
  });
});

describe('an answer in one piece', () => {
  it.each(['/trpc/hello', `/trpc/hello,who?batch=1&input=${input({})}`, '/trpc/nothing'])('%s is sent with its length, not in chunks', async (path) => {
    const { origin } = servers.ours;
    const response = await fetch(`${origin}${path}`);
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get('transfer-encoding')).toBeNull();
    expect(response.headers.get('content-length')).toBe(String(body.byteLength));
  });
});

describe('streamed answers', () => {
  it.each(['ours', "tRPC's"] as const)('%s: a JSON Lines batch sends each result as it comes', async (face) => {
    const response = await fetch(`${servers[face].origin}/trpc/hello,slow?batch=1&input=${input({})}`, { headers: { 'trpc-accept': 'application/jsonl' } });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    // The first result is there while the second still waits.
    while (!text.includes('world')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).not.toContain('late');
    release();
    for (let read = await reader.read(); !read.done; read = await reader.read()) text += new TextDecoder().decode(read.value);
    expect(text).toContain('late');
  });

  it.each(['ours', "tRPC's"] as const)('%s: a subscription streams its events, and ends when the client goes away', async (face) => {
    const id = `sse-${face}`;
    const controller = new AbortController();
    const response = await fetch(`${servers[face].origin}/trpc/ticks?input=${input({ id })}`, { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('first')) text += new TextDecoder().decode((await reader.read()).value);
    expect(subscriptionEnded.get(id)).toBe(false);
    controller.abort();
    await vi.waitFor(() => expect(subscriptionEnded.get(id)).toBe(true));
  });

  it.each(['ours', "tRPC's"] as const)("%s: a call's signal aborts when the client closes its connection", async (face) => {
    const id = `gone-${face}`;
    const socket = connect(Number(new URL(servers[face].origin).port), '127.0.0.1');
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`GET /trpc/wait?input=${input({ id })} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const signal = await vi.waitFor(() => querySignals.get(id) ?? Promise.reject(new Error('not called yet')));
    expect(signal.aborted).toBe(false);
    socket.destroy();
    await vi.waitFor(() => expect(signal.aborted).toBe(true));
  });
});
