import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOpenLoop } from '../src/http/load/open-loop.js';
import { runOpenLoopProcess } from '../src/http/load/open-loop-generator.js';
import { buildBenchOnce } from './build-once.js';

// The open-loop load behind the "tail at the same load" pairs: requests on a fixed schedule,
// latency from when each was due, answers read by length or by chunks, errors counted.

let server: Server;
let origin = '';
const seen: { method: string; url: string; authorization: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
      if (req.url === '/slow') {
        setTimeout(() => res.end('{"ok":true}'), 50);
      } else if (req.url === '/chunked') {
        res.write('{"part":');
        res.end('1}');
      } else if (req.url === '/fail') {
        res.statusCode = 500;
        res.end('{"error":true}');
      } else {
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('open-loop load', () => {
  it('sends rate × seconds requests on schedule and reads every answer', async () => {
    const result = await runOpenLoop({ url: `${origin}/ok`, method: 'GET', headers: {}, seconds: 1, connections: 4, rate: 200 });
    expect(result).toMatchObject({ requests: 200, non2xx: 0, errors: 0 });
    // The schedule spreads 200 requests over a second: the last is due at 995 ms.
    expect(result.seconds).toBeGreaterThan(0.95);
    expect(result.rps).toBeCloseTo(result.requests / result.seconds, 6);
    expect(result.p50Us).toBeGreaterThan(0);
    expect(result.p99Us).toBeGreaterThanOrEqual(result.p50Us);
  });

  it('counts a request that waits for a free connection as late from when it was due', async () => {
    // One connection, answers taking 50 ms, 40 requests a second for half a second: a closed loop
    // would see 50 ms every time; 20 requests due 25 ms apart and served 50 ms apart wait longer and longer.
    const result = await runOpenLoop({ url: `${origin}/slow`, method: 'GET', headers: {}, seconds: 0.5, connections: 1, rate: 40 });
    expect(result).toMatchObject({ requests: 20, errors: 0 });
    expect(result.p50Us).toBeGreaterThan(200_000);
    expect(result.p99Us).toBeGreaterThan(450_000);
  });

  it('reads chunked answers, counts error statuses, and sends the method, headers and body it is given', async () => {
    const chunked = await runOpenLoop({ url: `${origin}/chunked`, method: 'GET', headers: {}, seconds: 0.2, connections: 2, rate: 50 });
    expect(chunked).toMatchObject({ requests: 10, non2xx: 0, errors: 0 });
    const failing = await runOpenLoop({ url: `${origin}/fail`, method: 'GET', headers: {}, seconds: 0.2, connections: 2, rate: 50 });
    expect(failing).toMatchObject({ requests: 10, non2xx: 10, errors: 0 });
    seen.length = 0;
    await runOpenLoop({ url: `${origin}/ok?x=1`, method: 'POST', headers: { authorization: 'Bearer abc' }, body: 'a=1', seconds: 0.1, connections: 1, rate: 30 });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((request) => request.method === 'POST' && request.url === '/ok?x=1' && request.authorization === 'Bearer abc' && request.body === 'a=1')).toBe(true);
  });

  it('ends at once, every request an error, when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await runOpenLoop({ url: `http://127.0.0.1:${port}/`, method: 'GET', headers: {}, seconds: 1, connections: 2, rate: 100 });
    expect(result).toMatchObject({ requests: 0, errors: 100 });
  });

  it('runs in a process of its own for the bench', async () => {
    buildBenchOnce();
    const result = await runOpenLoopProcess({ url: `${origin}/ok`, method: 'GET', headers: {}, seconds: 0.5, connections: 2, rate: 100 });
    expect(result).toMatchObject({ requests: 50, non2xx: 0, errors: 0 });
  }, 60_000);
});
