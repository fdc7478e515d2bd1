/**
 * docs/contract.md#body-limits: the answers a handler writes without running a procedure, on
 * every face. Those written where a procedure's answer would be (a 404 for a path with no
 * procedure, a 413 or 415 body refusal) say `Vary: Authorization, DPoP`, as a procedure's
 * answers do. Those decided by the method alone (a 405 for a method the path lacks, a forbidden
 * method such as TRACE) and the RFC 9728 metadata are the same for every request, whatever its
 * credentials: they list neither, and a shared cache keeps one copy; so is the docs page, served
 * by a handler of its own. Raw HTTP/1.1 on loopback, so
 * that any method and any body reaches the server as sent.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { serve } from '@hono/node-server';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { protectedResourceMetadata } from '../../src/index.js';
import { createDocsFetchHandler, type DocsOptions } from '../../src/docs/index.js';
import { createDocsHandler, swaggerUiAssets } from '../../src/docs/node.js';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const auth = oauth2PasswordBearer({ tokenUrl: '/token', verify: async (token: string) => ({ subject: token, scopes: [] }) });
const router = t.router({
  me: t.procedure
    .meta({ openapi: { method: 'GET', path: '/me' } })
    .use(auth)
    .input(z.void())
    .output(z.string())
    .query(() => 'alice'),
  rename: t.procedure
    .meta({ openapi: { method: 'POST', path: '/rename' } })
    .use(auth)
    .input(z.object({ name: z.string() }))
    .output(z.string())
    .mutation(({ input }) => input.name),
});
const resourceMetadata = protectedResourceMetadata(router, { resource: 'https://api.example.test/api', authorizationServers: ['https://as.example.test'], unnamedAudience: 'trust' });

let servers: Record<Face, RunningFace>;
beforeAll(async () => {
  servers = await serveFaces(router, FACES, { maxBodySize: 1024, resourceMetadata });
});
afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

/** Sends one raw HTTP/1.1 request and answers its status and the names its `Vary` lists, lower case. */
function send(origin: string, method: string, path: string, headers: Record<string, string> = { Authorization: 'Bearer someone' }, body?: string): Promise<{ status: number; vary: string[]; text: string }> {
  const { hostname, port } = new URL(origin);
  const head = [`${method} ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  if (body !== undefined) head.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('end', () => {
      const headerBlock = text.split('\r\n\r\n')[0] ?? '';
      const vary = [...headerBlock.matchAll(/^vary:(.*)$/gim)].flatMap((match) => match[1]!.split(',').map((name) => name.trim().toLowerCase())).filter((name) => name !== '');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), vary, text: headerBlock });
    });
    socket.on('error', reject);
    socket.end(`${head.join('\r\n')}\r\n\r\n${body ?? ''}`);
  });
}

/** An answer written without a procedure, and where each face's request for it goes. */
interface Unrouted {
  readonly name: string;
  readonly status: number;
  readonly method: string;
  readonly rest: string;
  readonly trpc: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

const BIG = JSON.stringify({ name: 'x'.repeat(4096) });
const CREDENTIALS = { Authorization: 'Bearer someone', DPoP: 'a.proof.here' };
const WHERE_A_PROCEDURE_ANSWERS: readonly Unrouted[] = [
  { name: 'a path with no procedure', status: 404, method: 'GET', rest: '/api/nothing-here', trpc: '/trpc/nothingHere' },
  { name: 'a body past the limit', status: 413, method: 'POST', rest: '/api/rename', trpc: '/trpc/rename', headers: { ...CREDENTIALS, 'Content-Type': 'application/json' }, body: BIG },
  { name: 'a body of a type no procedure reads', status: 415, method: 'POST', rest: '/api/rename', trpc: '/trpc/rename', headers: { ...CREDENTIALS, 'Content-Type': 'text/csv' }, body: 'name\nx' },
];
const BY_THE_METHOD: readonly Unrouted[] = [
  { name: 'a method the path lacks', status: 405, method: 'DELETE', rest: '/api/me', trpc: '/trpc/me' },
  { name: 'a forbidden method (TRACE)', status: 405, method: 'TRACE', rest: '/api/me', trpc: '/trpc/me' },
];

describe('an answer written where a procedure would answer lists Authorization and DPoP in Vary', () => {
  it.each(FACES.flatMap((face) => WHERE_A_PROCEDURE_ANSWERS.map((row) => ({ face, ...row }))))('$face: $name', async ({ face, status, method, rest, trpc, headers, body }) => {
    const answer = await send(servers[face].origin, method, isRest(face) ? rest : trpc, headers, body);
    expect(answer.status, answer.text).toBe(status);
    expect(answer.vary, answer.text).toEqual(expect.arrayContaining(['authorization', 'dpop']));
  });
});

describe('an answer decided by the method alone is the same whatever the credentials, and varies on none', () => {
  /** What of an answer a cache would store: the status and the headers but the date. */
  const stored = (text: string) =>
    text
      .split('\r\n')
      .filter((line) => !/^date:/i.test(line))
      .join('\n');
  it.each(FACES.flatMap((face) => BY_THE_METHOD.map((row) => ({ face, ...row }))))('$face: $name', async ({ face, status, method, rest, trpc }) => {
    const path = isRest(face) ? rest : trpc;
    const withCredentials = await send(servers[face].origin, method, path, CREDENTIALS);
    const without = await send(servers[face].origin, method, path, {});
    expect(withCredentials.status, withCredentials.text).toBe(status);
    expect(stored(withCredentials.text)).toBe(stored(without.text));
    expect(withCredentials.vary, withCredentials.text).not.toContain('authorization');
    expect(withCredentials.vary, withCredentials.text).not.toContain('dpop');
  });
});

describe('the protected resource metadata varies on no credential', () => {
  const paths = ['/.well-known/oauth-protected-resource/api', '/.well-known/oauth-protected-resource'];
  it.each(FACES.flatMap((face) => paths.flatMap((path) => ['GET', 'OPTIONS', 'DELETE'].map((method) => ({ face, path, method })))))('$face: $method $path', async ({ face, path, method }) => {
    const answer = await send(servers[face].origin, method, path, CREDENTIALS);
    expect(answer.status, answer.text).toBe(method === 'GET' ? 200 : method === 'OPTIONS' ? 204 : 405);
    expect(answer.vary, answer.text).not.toContain('authorization');
    expect(answer.vary, answer.text).not.toContain('dpop');
  });
});

describe('the docs page varies on no credential', () => {
  const options: DocsOptions = { documents: [{ url: '/openapi.json', document: { openapi: '3.1.0', info: { title: 'T', version: '1' }, paths: {} } }] };
  const docsServers: Server[] = [];
  const origins: Record<string, string> = {};
  beforeAll(async () => {
    const nodeDocs = createDocsHandler(options);
    const node = createServer((req, res) => nodeDocs(req, res) || res.writeHead(404).end());
    node.listen(0, '127.0.0.1');
    docsServers.push(node);
    origins.node = `http://127.0.0.1:${await listening(node)}`;
    const fetchDocs = createDocsFetchHandler({ ...options, assets: swaggerUiAssets() });
    const onFetch = serve({ hostname: '127.0.0.1', port: 0, fetch: async (req: Request) => (await fetchDocs(req)) ?? new Response(null, { status: 404 }) }) as Server;
    docsServers.push(onFetch);
    origins.fetch = `http://127.0.0.1:${await listening(onFetch)}`;
  });
  afterAll(() => Promise.all(docsServers.map((server) => closing(server))));

  it.each((['node', 'fetch'] as const).flatMap((handler) => ['/docs', '/docs/'].map((path) => ({ handler, path }))))('$handler: GET $path', async ({ handler, path }) => {
    const answer = await send(origins[handler]!, 'GET', path, CREDENTIALS);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.vary, answer.text).not.toContain('authorization');
    expect(answer.vary, answer.text).not.toContain('dpop');
  });
});
