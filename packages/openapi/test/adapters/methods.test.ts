/**
 * A method the target does not serve is a 405 naming the methods it does (RFC 9110 §15.5.6),
 * on every face, through the real handlers on 127.0.0.1 (docs/contract.md#body-limits):
 * - REST: a path some operation has, asked with a method none there has (trpc-to-openapi alone
 *   answers it 404 `Not found`); a path no operation has stays a 404.
 * - tRPC: every method but GET, POST and HEAD (tRPC alone answers an OPTIONS, or a PUT without a
 *   body, 415 `Missing content-type header`).
 */
import { createServer } from 'node:http';
import { revocationEndpoint, tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { closing, servingOnLoopback } from '@trpc-oauth2/test-kit';
import { initTRPC, type TRPCError } from '@trpc/server';
import superjson from 'superjson';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { oauth2FetchRequestHandler } from '../../src/adapters/fetch.js';
import { createOAuth2HTTPServer, createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';
import { FACES, REST_FACES, TRPC_FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create({ transformer: superjson });
let calls = 0;
const ran = <$T>(value: $T): $T => ((calls += 1), value);
const router = t.router({
  ping: t.procedure.meta({ openapi: { method: 'GET', path: '/ping' } }).input(z.void()).output(z.string()).query(() => ran('pong')),
  list: t.procedure.meta({ openapi: { method: 'GET', path: '/items' } }).input(z.void()).output(z.array(z.string())).query(() => ran([])),
  add: t.procedure.meta({ openapi: { method: 'POST', path: '/items' } }).input(z.object({ name: z.string() })).output(z.string()).mutation(({ input }) => ran(input.name)),
  rename: t.procedure
    .meta({ openapi: { method: 'PUT', path: '/items/{id}' } })
    .input(z.object({ id: z.string(), name: z.string() }))
    .output(z.string())
    .mutation(({ input }) => ran(input.name)),
  remove: t.procedure.meta({ openapi: { method: 'DELETE', path: '/items/{id}' } }).input(z.object({ id: z.string() })).output(z.string()).mutation(({ input }) => ran(input.id)),
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: null }) })
    .grant('password', () => ran({ access_token: 'at', token_type: 'Bearer' }))
    .build(),
  revoke: revocationEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/revoke' } }), {
    authenticateClient: () => ({ id: null }),
    tokenTypes: ['refresh_token'],
    revoke: () => void ran(undefined),
  }),
  ticks: t.procedure.subscription(async function* () {
    calls += 1;
    yield 'tick';
  }),
});

let servers: Record<Face, RunningFace>;
beforeAll(async () => {
  servers = await serveFaces(router, FACES);
});
afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

const send = async (origin: string, method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> => {
  const response = await fetch(`${origin}${path}`, { method, headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

/** A refusal answered as the token endpoint's answers are: not stored (RFC 6749 §5.1). */
const expectNoStore = (answer: Answer, noStore: boolean) => {
  expect(answer.headers.get('cache-control')).toBe(noStore ? 'no-store' : null);
  expect(answer.headers.get('pragma')).toBe(noStore ? 'no-cache' : null);
};

describe.each(REST_FACES)('REST (%s): a method no operation at the path has', (face) => {
  const rows = [
    // The token and revocation endpoints: POST only.
    { method: 'GET', path: '/token', allow: 'POST', noStore: true },
    { method: 'PUT', path: '/token', allow: 'POST', noStore: true },
    { method: 'DELETE', path: '/token', allow: 'POST', noStore: true },
    { method: 'PATCH', path: '/token', allow: 'POST', noStore: true },
    { method: 'OPTIONS', path: '/token', allow: 'POST', noStore: true },
    { method: 'GET', path: '/revoke', allow: 'POST', noStore: true },
    // A GET path: HEAD beside it.
    { method: 'PUT', path: '/ping', allow: 'GET, HEAD', noStore: false },
    { method: 'POST', path: '/ping', allow: 'GET, HEAD', noStore: false },
    { method: 'OPTIONS', path: '/ping', allow: 'GET, HEAD', noStore: false },
    // One path, operations of several methods.
    { method: 'DELETE', path: '/items', allow: 'GET, HEAD, POST', noStore: false },
    { method: 'GET', path: '/items/7', allow: 'PUT, DELETE', noStore: false },
    { method: 'POST', path: '/items/7', allow: 'PUT, DELETE', noStore: false },
    // Every spelling trpc-to-openapi routes (case, a trailing slash) is the same path.
    { method: 'GET', path: '/TOKEN/', allow: 'POST', noStore: true },
    { method: 'PUT', path: '/Ping', allow: 'GET, HEAD', noStore: false },
  ];

  it.each(rows)('$method /api$path is a 405 with Allow: $allow, in the REST error body (RFC 6749 §5.2 at a token endpoint)', async ({ method, path, allow, noStore }) => {
    const before = { calls, errors: servers[face].errors.length };
    const answer = await send(servers[face].origin, method, `/api${path}`);
    expect(answer.status, answer.text).toBe(405);
    expect(answer.headers.get('allow')).toBe(allow);
    expect(answer.headers.get('content-type')).toBe('application/json');
    // A token or revocation endpoint's client reads every refusal as RFC 6749 §5.2's body (docs/contract.md#token-responses).
    expect(JSON.parse(answer.text)).toEqual(
      noStore
        ? { error: 'invalid_request', error_description: `${method} requests are not supported` }
        : { message: `${method} requests are not supported`, code: 'METHOD_NOT_SUPPORTED' },
    );
    expectNoStore(answer, noStore);
    // Answered by the handler: no procedure runs, and nothing is reported as an error.
    expect(calls).toBe(before.calls);
    expect(servers[face].errors.length).toBe(before.errors);
  });

  it('a HEAD on a path whose operations have no GET is what its GET gets: 405, Allow, no body', async () => {
    const get = await send(servers[face].origin, 'GET', '/api/token');
    const head = await send(servers[face].origin, 'HEAD', '/api/token');
    expect(get.status).toBe(405);
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
    expectNoStore(head, true);
    expect(head.text).toBe('');
  });

  it.each([
    ['PUT', '/nothing'],
    ['OPTIONS', '/nothing'],
    ['GET', '/items/7/more'],
    // A subscription has no REST operation.
    ['GET', '/ticks'],
  ])('%s /api%s, a path no operation has, stays a 404 Not found', async (method, path) => {
    const answer = await send(servers[face].origin, method, `/api${path}`);
    expect(answer.status, answer.text).toBe(404);
    expect(answer.headers.get('allow')).toBeNull();
    expect(JSON.parse(answer.text)).toMatchObject({ message: 'Not found', code: 'NOT_FOUND' });
  });

  it('the routed methods are still served', async () => {
    expect((await send(servers[face].origin, 'GET', '/api/ping')).status).toBe(200);
    expect((await send(servers[face].origin, 'HEAD', '/api/ping')).status).toBe(200);
    const add = await fetch(`${servers[face].origin}/api/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"a"}' });
    expect(add.status).toBe(200);
    const token = await fetch(`${servers[face].origin}/api/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&username=a&password=b',
    });
    expect(token.status).toBe(200);
  });
});

describe('REST, Node handler with next', () => {
  it('answers a path with operations 405 itself, and hands a path with none to next', async () => {
    const rest = createOAuth2OpenApiHttpHandler({ router, basePath: '/api', createContext: () => ({}) });
    const server = createServer((req, res) => void rest(req, res, () => void res.writeHead(299).end('next')));
    const origin = await servingOnLoopback(server);
    try {
      const wrong = await send(origin, 'PUT', '/api/ping');
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('GET, HEAD');
      expect(await send(origin, 'PUT', '/api/nothing')).toMatchObject({ status: 299, text: 'next' });
      expect(await send(origin, 'GET', '/api/nothing')).toMatchObject({ status: 299, text: 'next' });
      expect((await send(origin, 'GET', '/api/ping')).status).toBe(200);
    } finally {
      await closing(server);
    }
  });
});

describe.each(TRPC_FACES)('tRPC (%s): a method tRPC serves nothing with', (face) => {
  const rows = [
    { method: 'OPTIONS', route: 'ping', allow: 'GET', noStore: false },
    { method: 'OPTIONS', route: 'add', allow: 'POST', noStore: false },
    { method: 'OPTIONS', route: 'token', allow: 'POST', noStore: true },
    { method: 'OPTIONS', route: 'ticks', allow: 'GET', noStore: false },
    { method: 'OPTIONS', route: 'ping,add?batch=1', allow: 'GET, POST', noStore: false },
    { method: 'OPTIONS', route: 'nothing', allow: 'GET, POST', noStore: false },
    // Without a body to type, these were a 415 too.
    { method: 'PUT', route: 'add', allow: 'POST', noStore: false },
    { method: 'DELETE', route: 'ping', allow: 'GET', noStore: false },
    { method: 'PATCH', route: 'token', allow: 'POST', noStore: true },
  ];

  it.each(rows)('$method /trpc/$route is a 405 with Allow: $allow in the router\'s error shape, not a 415', async ({ method, route, allow, noStore }) => {
    const before = { calls, errors: servers[face].errors.length };
    const answer = await send(servers[face].origin, method, `/trpc/${route}`);
    expect(answer.status, answer.text).toBe(405);
    expect(answer.headers.get('allow')).toBe(allow);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('content-type')).not.toContain('event-stream');
    const error = superjson.deserialize<{ message: string; data: { code: string; httpStatus: number } }>(JSON.parse(answer.text).error);
    expect(error.message).toBe(`${method} requests are not supported`);
    expect(error.data).toMatchObject({ code: 'METHOD_NOT_SUPPORTED', httpStatus: 405 });
    expectNoStore(answer, noStore);
    expect(calls).toBe(before.calls);
    // Reported to onError, as tRPC reports the errors it answers before any call.
    expect(servers[face].errors.slice(before.errors).map((error: TRPCError) => error.code)).toEqual(['METHOD_NOT_SUPPORTED']);
  });

  it('a CORS preflight is the same 405: CORS is the application\'s to configure', async () => {
    const answer = await send(servers[face].origin, 'OPTIONS', '/trpc/ping', { origin: 'https://app.example', 'access-control-request-method': 'GET' });
    expect(answer.status, answer.text).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET');
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('GET and POST are still tRPC\'s', async () => {
    expect((await send(servers[face].origin, 'GET', '/trpc/ping')).status).toBe(200);
    const add = await fetch(`${servers[face].origin}/trpc/add`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(superjson.serialize({ name: 'a' })),
    });
    expect(add.status).toBe(200);
  });
});

describe('tRPC with allowMethodOverride: a query takes POST too', () => {
  it('trpc-standalone: OPTIONS on a query names GET, POST', async () => {
    const server = createOAuth2HTTPServer({ router, basePath: '/trpc/', allowMethodOverride: true, createContext: () => ({}) });
    const origin = await servingOnLoopback(server);
    try {
      const answer = await send(origin, 'OPTIONS', '/trpc/ping');
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe('GET, POST');
    } finally {
      await closing(server);
    }
  });

  it('trpc-fetch: OPTIONS on a query names GET, POST', async () => {
    const req = new Request('http://x.test/trpc/ping', { method: 'OPTIONS' });
    const response = await oauth2FetchRequestHandler({ router, endpoint: '/trpc', req, allowMethodOverride: true, createContext: () => ({}) });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
  });
});

describe('every face', () => {
  it.each(FACES)('%s: the same wrong method on the token endpoint is a 405 naming POST, with no-store', async (face) => {
    const answer = await send(servers[face].origin, 'OPTIONS', isRest(face) ? '/api/token' : '/trpc/token');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('POST');
    expectNoStore(answer, true);
  });
});

describe("tRPC with a router's pathSeparator: the Allow of a nested procedure", () => {
  const tilde = initTRPC.context<{ req?: unknown }>().create({ pathSeparator: '~' });
  const nested = tilde.router({
    users: tilde.router({ me: tilde.procedure.query(() => 'me'), rename: tilde.procedure.mutation(() => 'renamed') }),
  });

  it.each([
    ['users~me', 'GET'],
    ['users~rename', 'POST'],
    ['users.me', 'GET'],
    ['users~me,users~rename?batch=1', 'GET, POST'],
    ['users~nothing', 'GET, POST'],
  ])('trpc-standalone: OPTIONS /trpc/%s names %s', async (route, allow) => {
    const server = createOAuth2HTTPServer({ router: nested, basePath: '/trpc/', createContext: () => ({}) });
    const origin = await servingOnLoopback(server);
    try {
      const answer = await send(origin, 'OPTIONS', `/trpc/${route}`);
      expect(answer.status).toBe(405);
      expect(answer.headers.get('allow')).toBe(allow);
      // The path reaches the procedure as the separator says.
      if (allow === 'GET') expect((await send(origin, 'GET', `/trpc/${route}`)).status).toBe(200);
    } finally {
      await closing(server);
    }
  });
});
