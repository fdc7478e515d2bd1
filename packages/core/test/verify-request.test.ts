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
const behindProxy = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me' }, verify, origin: 'https://api.example/ignored-path' });
const withTenant = t.middleware(({ next }) => next({ ctx: { tenant: 'acme' } }));
const router = t.router({
  me: t.procedure.use(withTenant).use(auth.withScopes('me')).query(() => 'ok'),
  save: t.procedure.use(auth.withScopes('me')).mutation(() => 'saved'),
  proxied: t.procedure.use(behindProxy).query(() => 'ok'),
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
  });
});
