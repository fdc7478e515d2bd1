import { passwordRequestForm } from '@trpc-oauth2/core';
import { tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import superjson from 'superjson';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { DEFAULT_MAX_BATCH_SIZE, URLENCODED } from '../../src/index.js';
import { FACES, TRPC_FACES, isRest, serveFace, type Face, type RunningFace } from '../support/faces.js';

// Client mistakes that once reached the client as a 500 (docs/contract.md#body-limits): field
// names a transformer refuses, a Host header no URL can be built from, and batches of any size.

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create({ transformer: superjson });
let calls = 0;
const router = t.router({
  token: t.procedure
    .meta({ openapi: { method: 'POST', path: '/token' } })
    .input(passwordRequestForm)
    .output(z.object({ username: z.string() }))
    .mutation(({ input }) => ({ username: input.username })),
  grant: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/grant' } }), { authenticateClient: () => ({ id: null }) })
    .grant('password', () => ({ access_token: 'at', token_type: 'Bearer' }))
    .build(),
  ticks: t.procedure.subscription(async function* () {
    calls += 1;
    yield 'tick';
  }),
  ping: t.procedure
    .meta({ openapi: { method: 'GET', path: '/ping' } })
    .input(z.void())
    .output(z.string())
    .query(() => {
      calls += 1;
      return 'pong';
    }),
});

const servers = {} as Record<Face, RunningFace>;
const small = {} as Record<(typeof TRPC_FACES)[number], RunningFace>;
beforeAll(async () => {
  for (const face of FACES) servers[face] = await serveFace(router, face);
  for (const face of TRPC_FACES) small[face] = await serveFace(router, face, { maxBatchSize: 3 });
});
afterAll(async () => {
  await Promise.all([...Object.values(servers), ...Object.values(small)].map((server) => server.close()));
});

describe('urlencoded field names a transformer refuses (superjson: __proto__, constructor, prototype)', () => {
  const names = ['__proto__', 'constructor', 'prototype'];
  const rows = TRPC_FACES.flatMap((face) => names.map((name) => ({ face, name })));

  it.each(rows)('$face: $name=… is a 400 naming no internals, never a 500', async ({ face, name }) => {
    const response = await fetch(`${servers[face].origin}/trpc/token`, {
      method: 'POST',
      headers: { 'content-type': URLENCODED },
      body: `${name}=1&username=alice&password=x`,
    });
    expect(response.status).toBe(400);
    const error = superjson.deserialize<{ message: string; data: { code: string } }>((await response.json()).error);
    expect(error.data.code).toBe('BAD_REQUEST');
    expect(error.message).toBe(`Form field ${JSON.stringify(name)} cannot be read as an input`);
  });

  it.each(rows)('$face: $name=… in a streamed batch (trpc-accept: application/jsonl) is a 400 too', async ({ face, name }) => {
    const response = await fetch(`${servers[face].origin}/trpc/token?batch=1`, {
      method: 'POST',
      headers: { 'content-type': URLENCODED, 'trpc-accept': 'application/jsonl' },
      body: `${name}=1&username=alice&password=x`,
    });
    const text = await response.text();
    expect(response.status, text).toBe(400);
    expect(text).not.toContain('INTERNAL_SERVER_ERROR');
  });

  it.each(TRPC_FACES)('%s: the same form without them still reaches the procedure', async (face) => {
    const response = await fetch(`${servers[face].origin}/trpc/token`, {
      method: 'POST',
      headers: { 'content-type': URLENCODED },
      body: 'username=alice&password=x',
    });
    expect(response.status).toBe(200);
  });
});

/** The status of a request written byte for byte with this one `Host` header (none other). */
function statusWithHost(origin: string, method: string, path: string, host: string, body?: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(origin);
  const head = [`${method} ${path} HTTP/1.1`, `Host: ${host}`, 'Connection: close'];
  if (body !== undefined) head.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }));
    socket.on('error', reject);
    socket.end(`${head.join('\r\n')}\r\n\r\n${body ?? ''}`);
  });
}

describe('a Host header no request URL can be built from', () => {
  const hosts = ['x@evil', 'user:pass@127.0.0.1', '@', 'a b', '[::1'];
  const rows = FACES.flatMap((face) => hosts.flatMap((host) => ['GET', 'POST'].map((method) => ({ face, host, method }))));

  it.each(rows)('$face: $method with Host: $host is a 4xx', async ({ face, host, method }) => {
    const path = isRest(face) ? (method === 'GET' ? '/api/ping' : '/api/token') : method === 'GET' ? '/trpc/ping' : '/trpc/token';
    const body = method === 'POST' ? JSON.stringify(superjson.serialize({ username: 'a', password: 'b' })) : undefined;
    const { status, text } = await statusWithHost(servers[face].origin, method, path, host, body);
    expect(status, text).toBeGreaterThanOrEqual(400);
    expect(status, text).toBeLessThan(500);
  });

  // Through tRPC a subscription answers every error after a 200 that starts the stream: the
  // refusal comes first, as a 400 with no stream.
  it.each(FACES.flatMap((face) => hosts.map((host) => ({ face, host }))))('$face: a subscription with Host: $host is a 4xx, not a stream', async ({ face, host }) => {
    const { status, text } = await statusWithHost(servers[face].origin, 'GET', isRest(face) ? '/api/ticks' : '/trpc/ticks', host);
    expect(status, text).toBeGreaterThanOrEqual(400);
    expect(status, text).toBeLessThan(500);
    expect(text.toLowerCase()).not.toContain('text/event-stream');
  });
});

describe('a method no Fetch request is built with (TRACE, TRACK)', () => {
  const rows = FACES.flatMap((face) => ['TRACE', 'TRACK', 'trace'].flatMap((method) => ['ping', 'token', 'ticks'].map((route) => ({ face, method, route }))));

  it.each(rows)('$face: $method on /$route is a 4xx, never a 500', async ({ face, method, route }) => {
    const path = isRest(face) ? `/api/${route}` : `/trpc/${route}`;
    const before = calls;
    const { status, text } = await statusWithHost(servers[face].origin, method, path, new URL(servers[face].origin).host, route === 'token' ? '{}' : undefined);
    expect(status, text).toBeGreaterThanOrEqual(400);
    expect(status, text).toBeLessThan(500);
    expect(calls).toBe(before);
  });

  // The tRPC fetch face is handed its request by the runtime, and tRPC answers it (a 4xx above).
  const answered = FACES.filter((face) => face !== 'trpc-fetch');
  const targets = [
    // A HEAD is answered as the GET of its path on REST (docs/contract.md#body-limits).
    { route: 'ping', trpc: 'GET', rest: 'GET, HEAD' },
    { route: 'token', trpc: 'POST', rest: 'POST' },
    // A token endpoint's every answer carries no-store (RFC 6749 §5.1), this refusal included.
    { route: 'grant', trpc: 'POST', rest: 'POST', noStore: true },
    { route: 'ping,grant?batch=1', trpc: 'GET, POST', rest: undefined, noStore: true },
    // A subscription answers with a stream through tRPC: the refusal must come before it.
    { route: 'ticks', trpc: 'GET', rest: undefined },
    { route: 'ping,token?batch=1', trpc: 'GET, POST', rest: undefined },
  ];
  it.each(answered.flatMap((face) => targets.map((target) => ({ face, ...target }))))(
    '$face: TRACE on /$route is 405 METHOD_NOT_SUPPORTED with Allow, or a 404 where REST has no operation',
    async ({ face, route, trpc, rest, noStore }) => {
      const path = isRest(face) ? `/api/${route}` : `/trpc/${route}`;
      const { status, text } = await statusWithHost(servers[face].origin, 'TRACE', path, new URL(servers[face].origin).host);
      const allow = isRest(face) ? rest : trpc;
      if (allow === undefined) {
        expect(status, text).toBe(404);
        return;
      }
      expect(status, text).toBe(405);
      expect(text).toMatch(new RegExp(`^allow: ${allow}\\r$`, 'im'));
      // A token endpoint's REST refusal is RFC 6749 §5.2's body (docs/contract.md#token-responses).
      expect(text).toContain(isRest(face) && noStore === true ? '"error":"invalid_request"' : 'METHOD_NOT_SUPPORTED');
      expect(text).toContain('TRACE requests are not supported');
      expect(text).not.toContain('text/event-stream');
      if (noStore === true) expect(text).toMatch(/^cache-control: no-store\r$/im);
      else expect(text).not.toMatch(/^cache-control:/im);
    },
  );
});

describe('a request target no URL can be resolved from', () => {
  // `//` names an empty host: `new URL('//', base)` throws, whatever the base.
  const faces = ['rest-standalone', 'trpc-standalone'] as const;
  const rows = faces.flatMap((face) => ['GET', 'POST'].map((method) => ({ face, method })));

  it.each(rows)('$face: $method // is a 4xx', async ({ face, method }) => {
    const path = isRest(face) ? '/api//' : '//';
    const body = method === 'POST' ? '{}' : undefined;
    const { status, text } = await statusWithHost(servers[face].origin, method, path, '127.0.0.1', body);
    expect(status, text).toBeGreaterThanOrEqual(400);
    expect(status, text).toBeLessThan(500);
  });
});

describe('batch size (docs/contract.md#body-limits)', () => {
  const batch = (running: RunningFace, size: number) => {
    const paths = Array.from({ length: size }, () => 'ping').join(',');
    return fetch(`${running.origin}/trpc/${paths}?batch=1`);
  };

  it.each(TRPC_FACES)(`%s: a batch of ${DEFAULT_MAX_BATCH_SIZE} calls runs by default, one more is a 400 and runs none`, async (face) => {
    calls = 0;
    expect((await batch(servers[face], DEFAULT_MAX_BATCH_SIZE)).status).toBe(200);
    expect(calls).toBe(DEFAULT_MAX_BATCH_SIZE);
    calls = 0;
    const refused = await batch(servers[face], DEFAULT_MAX_BATCH_SIZE + 1);
    expect(refused.status).toBe(400);
    expect(calls).toBe(0);
  });

  it.each(TRPC_FACES)('%s: a GET of 1,000 calls is refused before any runs', async (face) => {
    calls = 0;
    expect((await batch(servers[face], 1_000)).status).toBe(400);
    expect(calls).toBe(0);
  });

  it.each(TRPC_FACES)('%s: maxBatchSize sets the limit', async (face) => {
    calls = 0;
    expect((await batch(small[face], 3)).status).toBe(200);
    expect((await batch(small[face], 4)).status).toBe(400);
    expect(calls).toBe(3);
  });
});
