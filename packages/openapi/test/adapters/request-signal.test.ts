import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';

// The REST Node face builds a GET's Request itself (node-request.ts); its signal (what
// createContext hands on: trpc-to-openapi calls procedures without one) must still abort when the
// client goes away, and never once the answer was sent.

const t = initTRPC.context<{ req: Request }>().meta<OpenApiMeta>().create({ isDev: false });
const signals = new Map<string, AbortSignal>();
const router = t.router({
  wait: t.procedure
    .meta({ openapi: { method: 'GET', path: '/wait' } })
    .input(z.object({ id: z.string() }))
    .output(z.string())
    .query(async ({ input, ctx }) => {
      signals.set(input.id, ctx.req.signal);
      await new Promise((resolve) => ctx.req.signal.addEventListener('abort', resolve, { once: true }));
      return 'aborted';
    }),
  now: t.procedure
    .meta({ openapi: { method: 'GET', path: '/now' } })
    .input(z.object({ id: z.string() }))
    .output(z.object({ authorization: z.string().nullable(), url: z.string() }))
    .query(({ input, ctx }) => {
      signals.set(input.id, ctx.req.signal);
      return { authorization: ctx.req.headers.get('authorization'), url: ctx.req.url };
    }),
});

let server: Server;
let port = 0;
beforeAll(async () => {
  const handler = createOAuth2OpenApiHttpHandler({ router, basePath: '/api', createContext: ({ req }) => ({ req }) });
  server = createServer((req, res) => void handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('the signal of a GET on the REST Node face', () => {
  it('aborts when the client closes its connection before the answer', async () => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(`GET /api/wait?id=gone HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const signal = await vi.waitFor(() => signals.get('gone') ?? Promise.reject(new Error('not called yet')));
    expect(signal.aborted).toBe(false);
    socket.destroy();
    await vi.waitFor(() => expect(signal.aborted).toBe(true));
  });

  it('stays unaborted once the answer is sent, and the request carries the headers and the URL the client used', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/now?id=done`, { headers: { authorization: 'Bearer abc' } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ authorization: 'Bearer abc', url: `http://127.0.0.1:${port}/now?id=done` });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signals.get('done')!.aborted).toBe(false);
  });
});
