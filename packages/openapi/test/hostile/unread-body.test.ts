import { connect } from 'node:net';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_MAX_BODY_SIZE, URLENCODED, protectedResourceMetadata } from '../../src/index.js';
import { routeOf, serveFaces, type RunningFace } from '../support/faces.js';
import { httpRouter } from '../support/http-router.js';
import { tokenRouter } from '../token-endpoint/token-router.js';

// docs/contract.md#body-limits: after refusing a body it has not read, a Node face closes the
// connection instead of reading the rest of it (Node's server would, to keep the connection).

const NODE_FACES = ['rest-standalone', 'trpc-standalone'] as const;
type NodeFace = (typeof NODE_FACES)[number];

let tokens: Record<NodeFace, RunningFace>;
let plain: Record<NodeFace, RunningFace>;
beforeAll(async () => {
  tokens = await serveFaces(tokenRouter, NODE_FACES);
  plain = await serveFaces(httpRouter, NODE_FACES, { maxBodySize: 10_000 });
});
afterAll(async () => {
  await Promise.all([...Object.values(tokens), ...Object.values(plain)].map((running) => running.close()));
});

/** The most a client sends before it gives up on the server closing. */
const SEND_AT_MOST = 256 * 1024 * 1024;

interface Flood {
  /** What the server answered, as text. */
  answer: string;
  /** Bytes the client wrote (or handed to its kernel) before the server closed. */
  sent: number;
  closedByServer: boolean;
}

/**
 * A POST that does not end (chunked, or `declared` bytes long): it keeps sending after the answer,
 * and after the server's FIN too (`allowHalfOpen`), until the server closes the connection,
 * `SEND_AT_MOST` bytes, or 10 s.
 */
function flood(origin: string, path: string, contentType: string, extraHeaders = '', declared?: number, method = 'POST'): Promise<Flood> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    const frame = declared === undefined ? Buffer.from(`10000\r\n${'a'.repeat(0x10000)}\r\n`) : Buffer.alloc(0x10000, 'a');
    let answer = '';
    let sent = 0;
    let closedByServer = false;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ answer, sent, closedByServer });
    };
    const timer = setTimeout(done, 10_000);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    // EPIPE or ECONNRESET: the server closed while this was still sending.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closedByServer = sent < SEND_AT_MOST;
      done();
    });
    const pump = () => {
      while (!socket.destroyed && sent < SEND_AT_MOST) {
        sent += frame.length;
        if (!socket.write(frame)) return void socket.once('drain', pump);
      }
    };
    const framing = declared === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${declared}`;
    socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${contentType}\r\n${extraHeaders}${framing}\r\n\r\n`, pump);
  });
}

describe.each(NODE_FACES)('a body refused unread on %s', (face) => {
  const prefix = face === 'rest-standalone' ? '/api' : '/trpc';

  it.each([
    ["over a token endpoint's own limit", () => tokens[face], '/token', 'application/x-www-form-urlencoded', '', 413, undefined],
    ['JSON over the handler-wide limit (on tRPC standalone, tRPC’s own limit)', () => plain[face], '/sum', 'application/json', '', 413, undefined],
    ['with a Content-Encoding', () => tokens[face], '/token', 'application/x-www-form-urlencoded', 'Content-Encoding: gzip\r\n', 415, undefined],
    ['declared 1 GiB long', () => tokens[face], '/token', 'application/json', '', 413, 2 ** 30],
  ] as const)('%s: answered with Connection: close, and the connection closed after at most a few MB', async (_name, running, path, type, extra, status, declared) => {
    const started = Date.now();
    const { answer, sent, closedByServer } = await flood(running().origin, `${prefix}${path}`, type, extra, declared);
    expect(answer.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${status === 413 ? 'Payload Too Large' : 'Unsupported Media Type'}`);
    expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect(closedByServer).toBe(true);
    expect(sent).toBeLessThan(16 * 1024 * 1024);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  /** Sends `request` whole and reads the answer's head. */
  const answerTo = (request: string) =>
    new Promise<string>((resolve) => {
      const { hostname, port } = new URL(tokens[face].origin);
      const socket = connect(Number(port), hostname, () => socket.write(request));
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.includes('\r\n\r\n')) {
          socket.destroy();
          resolve(text);
        }
      });
    });
  const head = (framing: string) => `POST ${prefix}/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n${framing}\r\n\r\n`;

  it('keeps the connection of a body read to its end, chunked or not', async () => {
    const body = 'grant_type=password&username=alice&password=wonderland';
    for (const request of [head(`Content-Length: ${body.length}`) + body, head('Transfer-Encoding: chunked') + `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`]) {
      const answer = await answerTo(request);
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
      expect(answer.toLowerCase()).toContain('\r\nconnection: keep-alive\r\n');
    }
  });

  it('keeps the connection of a short body refused before its end: the rest is read, as Node reads it', async () => {
    const answer = await answerTo(head('Content-Length: 50000') + 'a'.repeat(50_000));
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer.toLowerCase()).toContain('\r\nconnection: keep-alive\r\n');
  });
});

// On the fetch faces the connection is the runtime's (docs/contract.md#body-limits). These tests
// serve them with @hono/node-server, which answers a body refused unread keep-alive and reads the
// rest of it after the answer (at most 64 MiB, for at most 500 ms): the suite's clients send their
// next request on that connection at once, so it must still answer there past those 500 ms.
const FETCH_FACES = ['rest-fetch', 'trpc-fetch'] as const;
type FetchFace = (typeof FETCH_FACES)[number];

describe.each(FETCH_FACES)('a body refused unread on %s, as these tests serve it', (face) => {
  let running: RunningFace;
  beforeAll(async () => {
    running = (await serveFaces(httpRouter, [face] as readonly FetchFace[]))[face];
  });
  afterAll(() => running.close());

  it('keeps the connection it answered keep-alive: a request sent on it after the body, 700 ms later, is answered', async () => {
    const { hostname, port, pathname: token } = new URL(routeOf(running, 'token').url);
    const { pathname: sum } = new URL(routeOf(running, 'sum').url);
    const socket = connect({ host: hostname, port: Number(port) });
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    // EPIPE or ECONNRESET: the server closed the connection under the second request.
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const until = async (done: () => boolean) => {
      while (!done() && !socket.destroyed) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    // The head alone, then the body once the 413 is in: as a client still writing it when the answer
    // comes (the body arrives after the answer, while the server reads what is left of it).
    const size = DEFAULT_MAX_BODY_SIZE + 1;
    socket.write(`POST ${token} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${URLENCODED}\r\nContent-Length: ${size}\r\n\r\n`);
    await until(() => text.includes(`larger than ${DEFAULT_MAX_BODY_SIZE} bytes`));
    const [first] = text.split('\r\n');
    expect(first).toBe('HTTP/1.1 413 Payload Too Large');
    expect(text.toLowerCase()).toContain('\r\nconnection: keep-alive\r\n');
    await new Promise((resolve) => socket.write(Buffer.alloc(size, 'a'), resolve));
    await new Promise((resolve) => setTimeout(resolve, 700));
    const answered = text.length;
    const json = JSON.stringify({ a: 2, b: 3 });
    socket.write(`POST ${sum} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\nConnection: close\r\n\r\n${json}`);
    await closed;
    expect(text.slice(answered).split('\r\n')[0]).toBe('HTTP/1.1 200 OK');
  });
});

// The well-known documents are answered before any body is read: what the client still sends is
// not read either (docs/contract.md#body-limits).
describe.each(NODE_FACES)('a body sent to the metadata on %s', (face) => {
  let running: RunningFace;
  beforeAll(async () => {
    const t = initTRPC.meta<OpenApiMeta>().create();
    const router = t.router({ ping: t.procedure.meta({ openapi: { method: 'GET', path: '/ping' } }).input(z.void()).output(z.string()).query(() => 'pong') });
    const resourceMetadata = protectedResourceMetadata(router, { resource: 'https://api.example/', authorizationServers: ['https://issuer.example'] });
    running = (await serveFaces(router, [face], { resourceMetadata }))[face];
  });
  afterAll(() => running.close());

  it.each([
    ['POST', 'HTTP/1.1 405 Method Not Allowed'],
    ['GET', 'HTTP/1.1 200 OK'],
  ])('%s with a body that does not end: answered with Connection: close, and the connection closed after at most a few MB', async (method, status) => {
    const started = Date.now();
    const { answer, sent, closedByServer } = await flood(running.origin, '/.well-known/oauth-protected-resource', 'application/json', '', undefined, method);
    expect(answer.split('\r\n')[0]).toBe(status);
    expect(answer.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect(closedByServer).toBe(true);
    expect(sent).toBeLessThan(16 * 1024 * 1024);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
