/**
 * A verifier sees the request its credential came with (method, the URL the client used, the
 * headers) and the procedure's ctx, on every face (docs/contract.md#verified-readers).
 */
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2PasswordBearer, type Principal, type VerifyOptions } from '../src/index.js';
import { serveOnEveryAdapter, type Adapter, type RunningServer } from './support/serve.js';

interface Seen {
  method: string;
  url: string;
  tenant: string | undefined;
  authorization: string | undefined;
  ctxKeys: string[];
}

const seen: Seen[] = [];
const verify = async (token: string, options?: VerifyOptions<{ tenant?: string }>): Promise<Principal> => {
  const { request, ctx } = options!;
  seen.push({ method: request.method, url: request.url, tenant: request.header('x-tenant'), authorization: request.header('authorization'), ctxKeys: Object.keys(ctx) });
  if (token !== 'good') throw new Error('unexpected token');
  return { scopes: ['me'] };
};

const t = initTRPC.context<{ req?: unknown; headers?: Record<string, string> }>().create();
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me' }, verify });
const behindProxy = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me' }, verify, origin: 'https://API.example:443/' });
/** Behind a proxy that serves the API at `/edge/…` and strips `/edge` off before it reaches the application. */
const belowPrefix = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me' }, verify, origin: 'https://api.example', pathPrefix: '/edge/' });
const prefixOnly = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me' }, verify, pathPrefix: '/edge' });
const withTenant = t.middleware(({ next }) => next({ ctx: { tenant: 'acme' } }));
const router = t.router({
  me: t.procedure.use(withTenant).use(auth.withScopes('me')).query(() => 'ok'),
  save: t.procedure.use(auth.withScopes('me')).mutation(() => 'saved'),
  proxied: t.procedure.use(behindProxy).query(() => 'ok'),
  prefixed: t.procedure.use(belowPrefix).query(() => 'ok'),
  prefixOnly: t.procedure.use(prefixOnly).query(() => 'ok'),
});

let servers: Record<Adapter, RunningServer>;
beforeAll(async () => {
  servers = await serveOnEveryAdapter(router);
});
afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

const last = () => seen.at(-1)!;

describe.each(['fetch', 'standalone'] as const)('over tRPC’s %s adapter', (adapter) => {
  it('a query: GET, the absolute URL the client used, every header, and the ctx built so far', async () => {
    const server = servers[adapter];
    const response = await fetch(`${server.url}/me?input=%7B%7D`, { headers: { authorization: 'Bearer good', 'x-tenant': 'acme' } });
    expect(response.status).toBe(200);
    expect(last()).toEqual({
      method: 'GET',
      url: `${server.url}/me?input=%7B%7D`,
      tenant: 'acme',
      authorization: 'Bearer good',
      ctxKeys: expect.arrayContaining(['req', 'tenant']),
    });
  });

  it('a mutation: POST', async () => {
    const server = servers[adapter];
    const response = await fetch(`${server.url}/save`, { method: 'POST', headers: { authorization: 'Bearer good', 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(200);
    expect(last()).toMatchObject({ method: 'POST', url: `${server.url}/save` });
  });

  it('the application’s origin wins over the Host header (behind a proxy)', async () => {
    const server = servers[adapter];
    const response = await fetch(`${server.url}/proxied`, { headers: { authorization: 'Bearer good' } });
    expect(response.status).toBe(200);
    expect(last().url).toBe('https://api.example/trpc/proxied');
  });

  it('the path a proxy strips goes between the origin and the path, with the query', async () => {
    const server = servers[adapter];
    const response = await fetch(`${server.url}/prefixed?input=%7B%7D`, { headers: { authorization: 'Bearer good' } });
    expect(response.status).toBe(200);
    expect(last().url).toBe('https://api.example/edge/trpc/prefixed?input=%7B%7D');
  });

  it('without an origin, the path a proxy strips goes under the request’s own origin', async () => {
    const server = servers[adapter];
    const response = await fetch(`${server.url}/prefixOnly`, { headers: { authorization: 'Bearer good' } });
    expect(response.status).toBe(200);
    expect(last().url).toBe(`${new URL(server.url).origin}/edge/trpc/prefixOnly`);
  });
});

describe('through createCaller (no HTTP request)', () => {
  const caller = t.createCallerFactory(router);
  it('the procedure path under the origin, GET for a query and POST for a mutation, and the ctx', async () => {
    await caller({ headers: { authorization: 'Bearer good' } }).me();
    expect(last()).toEqual({ method: 'GET', url: 'http://localhost/me', tenant: undefined, authorization: 'Bearer good', ctxKeys: ['headers', 'tenant'] });
    await caller({ headers: { authorization: 'Bearer good' } }).save();
    expect(last()).toMatchObject({ method: 'POST', url: 'http://localhost/save' });
    await caller({ headers: { authorization: 'Bearer good' } }).proxied();
    expect(last().url).toBe('https://api.example/proxied');
    await caller({ headers: { authorization: 'Bearer good' } }).prefixed();
    expect(last().url).toBe('https://api.example/edge/prefixed');
  });
});

describe('origin and pathPrefix are checked where the reader is made', () => {
  const reader = (options: { origin?: string; pathPrefix?: string }) => () => oauth2PasswordBearer({ tokenUrl: 'token', verify, ...options });

  it.each(['https://api.example/svc', 'https://api.example/?a=1', 'https://api.example/#top', 'https://user@api.example', 'ftp://api.example', 'api.example'])(
    'origin %j is refused, not cut down to an origin',
    (origin) => {
      expect(reader({ origin })).toThrow(TypeError);
    },
  );

  it('a path in origin is refused with the option it belongs in', () => {
    expect(reader({ origin: 'https://api.example/svc' })).toThrow(/pathPrefix/);
  });

  it('an origin given as a URL (from plain JavaScript) is checked as its text', () => {
    expect(reader({ origin: new URL('https://api.example/svc') as never })).toThrow(/pathPrefix/);
    expect(reader({ origin: new URL('https://api.example') as never })).not.toThrow();
  });

  it.each(['svc', '//evil.example', '/..//evil.example', '/svc?x=1', '/svc#x', '/a\\b', 'https://api.example/svc'])('pathPrefix %j is refused', (pathPrefix) => {
    expect(reader({ origin: 'https://api.example', pathPrefix })).toThrow(TypeError);
  });

  it.each([
    ['/svc/', 'https://api.example/svc/me'],
    ['/a/./b/../c', 'https://api.example/a/c/me'],
    ['/caf\u00e9', 'https://api.example/caf%C3%A9/me'],
    ['/', 'https://api.example/me'],
    ['', 'https://api.example/me'],
  ])('pathPrefix %j is read as a URL path (%s)', async (pathPrefix, url) => {
    const normalized = t.router({ me: t.procedure.use(oauth2PasswordBearer({ tokenUrl: 'token', verify, origin: 'https://api.example', pathPrefix })).query(() => 'ok') });
    await t.createCallerFactory(normalized)({ headers: { authorization: 'Bearer good' } }).me();
    expect(last().url).toBe(url);
  });

  it('an origin from ctx is checked on each call: one with a path is a fault of the server, not a refused token', async () => {
    const perCall = oauth2PasswordBearer({ tokenUrl: 'token', verify, origin: (ctx: { publicUrl: string }) => ctx.publicUrl, pathPrefix: '/edge' });
    const tc = initTRPC.context<{ publicUrl: string; headers: Record<string, string> }>().create();
    const caller = tc.createCallerFactory(tc.router({ me: tc.procedure.use(perCall).query(() => 'ok') }));
    await caller({ publicUrl: 'https://Other.example:443', headers: { authorization: 'Bearer good' } }).me();
    expect(last().url).toBe('https://other.example/edge/me');
    await expect(caller({ publicUrl: 'https://other.example/svc', headers: { authorization: 'Bearer good' } }).me()).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR' });
  });
});
