/**
 * `basePath` on both REST handlers over loopback: the prefix is stripped at a segment boundary
 * before trpc-to-openapi matches an operation, paths outside it are not served, and `req.url` is
 * left as it came. The Node handler's `createContext` gets the Fetch Request and the Node request.
 */
import { createServer, IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOAuth2OpenApiFetchHandler } from '../../src/adapters/fetch.js';
import { createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';

const t = initTRPC.context<{ path: string }>().meta<OpenApiMeta>().create({ isDev: false });
const router = t.router({
  me: t.procedure
    .meta({ openapi: { method: 'GET', path: '/me' } })
    .input(z.void())
    .output(z.string())
    .query(({ ctx }) => ctx.path),
});

const listen = (server: Server) =>
  new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));

describe('basePath on the Node REST handler', () => {
  let origin: string;
  let server: Server;
  const seen: { req: unknown; incoming: unknown; url: string | undefined }[] = [];
  beforeAll(async () => {
    const rest = createOAuth2OpenApiHttpHandler({
      router,
      basePath: '/api/',
      createContext: ({ req, incoming }) => {
        seen.push({ req, incoming, url: incoming.url });
        return { path: new URL(req.url).pathname };
      },
    });
    const withNext = createOAuth2OpenApiHttpHandler({ router, basePath: '/v2', createContext: ({ req }) => ({ path: new URL(req.url).pathname }) });
    server = createServer((req, res) => {
      if (req.url?.startsWith('/v2') || req.url?.startsWith('/next')) void withNext(req, res, () => res.writeHead(418).end('next'));
      else void rest(req, res);
    });
    origin = await listen(server);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('serves an operation below the base path, reading the path below it', async () => {
    const response = await fetch(`${origin}/api/me?x=1`);
    expect(response.status).toBe(200);
    expect(await response.json()).toBe('/me');
  });

  it('hands createContext the Fetch Request and the Node request, whose url is left as it came', async () => {
    seen.length = 0;
    await fetch(`${origin}/api/me`);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.req).toBeInstanceOf(Request);
    expect(seen[0]!.incoming).toBeInstanceOf(IncomingMessage);
    expect(seen[0]!.url).toBe('/api/me');
  });

  it.each(['/apiary/me', '/me', '/ap'])('does not serve %s, outside the base path: 404 NOT_FOUND', async (path) => {
    const response = await fetch(`${origin}${path}`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not found', code: 'NOT_FOUND' });
  });

  it('hands a path outside the base path to next, when given', async () => {
    expect((await fetch(`${origin}/next/me`)).status).toBe(418);
    expect(await (await fetch(`${origin}/v2/me`)).json()).toBe('/me');
  });
});

describe('basePath on the fetch REST handler', () => {
  const createContext = ({ req }: { req: Request }) => ({ path: new URL(req.url).pathname });
  const call = (url: string, options: { basePath?: `/${string}`; endpoint?: `/${string}` }) =>
    createOAuth2OpenApiFetchHandler({ router, req: new Request(url), createContext, ...options });

  it.each([{ basePath: '/api' }, { endpoint: '/api' }, { basePath: '/api', endpoint: '/other' }] as const)(
    'serves an operation below %o',
    async (options) => {
      const response = await call('http://127.0.0.1/api/me', options);
      expect(response.status).toBe(200);
      expect(await response.json()).toBe('/me');
    },
  );

  it('strips the base path as a prefix only, never elsewhere in the URL', async () => {
    const response = await call('http://127.0.0.1/x/api/me', { basePath: '/api' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: 'Not found', code: 'NOT_FOUND' });
    expect((await call('http://127.0.0.1/apiary/me', { basePath: '/api' })).status).toBe(404);
  });

  it('serves from the root without a base path', async () => {
    expect(await (await call('http://127.0.0.1/me', {})).json()).toBe('/me');
  });
});
