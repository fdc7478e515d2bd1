/**
 * A body sent in 1-byte chunks costs work and memory in proportion to its size on the way through
 * the body reader (docs/contract.md#body-limits), counted, never timed:
 * - on the Node faces, the chunks Node's parser emits one by one (however many came in one
 *   packet) reach the reader gathered into a few, not one stream chunk per byte;
 * - the reader that buffers a body (forms and JSON on the REST faces, forms on the tRPC faces)
 *   keeps no chunk once it has copied it: none is alive when the last one is read.
 */
import { createServer } from 'node:http';
import { connect } from 'node:net';
import v8 from 'node:v8';
import vm from 'node:vm';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { closing, servingOnLoopback } from '@trpc-oauth2/test-kit';
import { incomingRequest } from '../../src/adapters/node-request.js';
import { createOAuth2OpenApiFetchHandler } from '../../src/adapters/fetch.js';
import { REST_FACES, serveFaces } from '../support/faces.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const BYTES = 20_000;
const body = JSON.stringify({ s: 'x'.repeat(BYTES - 8) });

/** The request, its body as chunked transfer coding in 1-byte chunks, written at once. */
const oneByteChunks = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n` +
  [...body].map((c) => `1\r\n${c}\r\n`).join('') +
  '0\r\n\r\n';

const send = (origin: string, wire: string) =>
  new Promise<string>((resolve, reject) => {
    const { hostname, port } = new URL(origin);
    const socket = connect(Number(port), hostname, () => socket.end(wire));
    let answer = '';
    socket.on('data', (data) => (answer += data.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });

describe('a body in 1-byte chunks', () => {
  it('reaches the reader of a Node request gathered into a few chunks, every byte in order', async () => {
    const read: { chunks: number; text: string }[] = [];
    const server = createServer((req, res) => {
      void (async () => {
        const request = incomingRequest(req, res, 1_000_000)!;
        const reader = request.body!.getReader();
        let chunks = 0;
        const bytes: number[] = [];
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          chunks += 1;
          bytes.push(...value);
        }
        read.push({ chunks, text: Buffer.from(bytes).toString() });
        res.end('ok');
      })();
    });
    const origin = await servingOnLoopback(server);
    try {
      expect(await send(origin, oneByteChunks('/'))).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      await closing(server);
    }
    expect(read[0]!.text).toBe(body);
    // One chunk per byte before; now one per burst of Node's parser (a read of the socket), at most.
    expect(read[0]!.chunks).toBeLessThan(BYTES / 100);
  });

  it.each(REST_FACES)('is read whole on the %s face', async (face) => {
    const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
    const router = t.router({
      echo: t.procedure.meta({ openapi: { method: 'POST', path: '/echo', protect: false } }).input(z.object({ s: z.string() })).output(z.number()).mutation(({ input }) => input.s.length),
    });
    const running = (await serveFaces(router, [face]))[face];
    try {
      const answer = await send(running.origin, oneByteChunks('/api/echo'));
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      expect(answer.endsWith(`\r\n\r\n${BYTES - 8}`)).toBe(true);
    } finally {
      await running.close();
    }
  });

  it('keeps no chunk once read: none of them is alive when the last is read (REST fetch face)', async () => {
    const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
    const router = t.router({
      echo: t.procedure.meta({ openapi: { method: 'POST', path: '/echo', protect: false } }).input(z.object({ s: z.string() })).output(z.number()).mutation(({ input }) => input.s.length),
    });
    const count = 5_000;
    const text = JSON.stringify({ s: 'x'.repeat(count - 8) });
    let collected = 0;
    const registry = new FinalizationRegistry<void>(() => (collected += 1));
    let sent = 0;
    let collectedBeforeLast = -1;
    const stream = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          if (sent === count) return controller.close();
          if (sent === count - 1) {
            // The reader holds what it keeps; the rest is garbage once collected.
            for (let round = 0; round < 3; round += 1) {
              gc();
              await new Promise((resolve) => setTimeout(resolve, 10));
            }
            collectedBeforeLast = collected;
          }
          const chunk = new Uint8Array([text.charCodeAt(sent)]);
          registry.register(chunk);
          sent += 1;
          controller.enqueue(chunk);
        },
      },
      { highWaterMark: 0 },
    );
    const req = new Request('http://127.0.0.1/api/echo', { method: 'POST', body: stream, headers: { 'content-type': 'application/json' }, duplex: 'half' } as RequestInit);
    const response = await createOAuth2OpenApiFetchHandler({ router, endpoint: '/api', req, createContext: ({ req: request }) => ({ req: request }) });
    expect(response.status).toBe(200);
    expect(await response.json()).toBe(count - 8);
    // All but the few a stream may still hold were let go.
    expect(collectedBeforeLast).toBeGreaterThan(count - 1 - 16);
  });
});
