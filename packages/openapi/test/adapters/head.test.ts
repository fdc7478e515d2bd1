/**
 * HEAD is GET without the content (RFC 9110 §9.3.2): on the REST faces it is answered as the GET
 * it asks about, its security first, with the GET's status and headers and no body. trpc-to-openapi
 * alone answers every HEAD 204, unauthenticated, whatever the path.
 */
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServer } from 'node:http';
import { closing, servingOnLoopback } from '@trpc-oauth2/test-kit';
import { createOAuth2OpenApiFetchHandler } from '../../src/adapters/fetch.js';
import { createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';
import { REST_FACES, serveFaces, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const auth = oauth2PasswordBearer({
  tokenUrl: '/token',
  scopes: { me: 'Me', admin: 'Admin' },
  verify: async (token) => ({ scopes: token === 'admin' ? ['me', 'admin'] : ['me'] }),
});
let ran = 0;
/** The method each verification saw (a DPoP proof is checked against it: `htm`). */
const seenMethods: string[] = [];
const seeing = oauth2PasswordBearer({
  tokenUrl: '/token',
  scopes: { me: 'Me' },
  verify: async (_token, options) => (seenMethods.push(options?.request.method ?? 'none'), { scopes: ['me'] }),
});
const router = t.router({
  seen: t.procedure.meta({ openapi: { method: 'GET', path: '/seen' } }).use(seeing.withScopes('me')).input(z.void()).output(z.string()).query(() => 'seen'),
  me: t.procedure.meta({ openapi: { method: 'GET', path: '/me' } }).use(auth.withScopes('me')).input(z.void()).output(z.string()).query(() => (ran++, 'me')),
  admin: t.procedure.meta({ openapi: { method: 'GET', path: '/admin' } }).use(auth.withScopes('admin')).input(z.void()).output(z.string()).query(() => 'admin'),
  save: t.procedure.meta({ openapi: { method: 'POST', path: '/save' } }).use(auth.withScopes('me')).input(z.object({})).output(z.string()).mutation(() => 'saved'),
});

let faces: Record<(typeof REST_FACES)[number], RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, REST_FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

describe.each(REST_FACES)('HEAD on the %s face', (face) => {
  it.each([
    ['no token', '/me', {}],
    ['a token', '/me', { authorization: 'Bearer user' }],
    ['a token without the scope', '/admin', { authorization: 'Bearer user' }],
    ['a path with no operation', '/nothing', {}],
    ['a path whose operation is a POST', '/save', { authorization: 'Bearer user' }],
  ] as const)('with %s (%s) answers as GET does, without the body', async (_name, path, headers) => {
    const url = `${faces[face].origin}/api${path}`;
    const get = await fetch(url, { headers });
    await get.text();
    const head = await fetch(url, { method: 'HEAD', headers });
    expect(head.status).toBe(get.status);
    expect(head.headers.get('www-authenticate')).toBe(get.headers.get('www-authenticate'));
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(await head.text()).toBe('');
  });

  it('hands createContext and the verifier the request as it came: a HEAD (a DPoP proof names htm: HEAD)', async () => {
    seenMethods.length = 0;
    for (const method of ['HEAD', 'GET']) expect((await fetch(`${faces[face].origin}/api/seen`, { method, headers: { authorization: 'Bearer user' } })).status).toBe(200);
    expect(seenMethods).toEqual(['HEAD', 'GET']);
  });

  it('runs the operation once for a HEAD that passes its security, as a GET would', async () => {
    const before = ran;
    expect((await fetch(`${faces[face].origin}/api/me`, { method: 'HEAD', headers: { authorization: 'Bearer user' } })).status).toBe(200);
    expect(ran - before).toBe(1);
    expect((await fetch(`${faces[face].origin}/api/me`, { method: 'HEAD' })).status).toBe(401);
    expect(ran - before).toBe(1);
  });
});

describe('HEAD through the fetch handler itself (no bridge to drop a body)', () => {
  const direct = (req: Request, options: { basePath?: `/${string}`; onError?: (opts: { req: Request }) => void } = {}) =>
    createOAuth2OpenApiFetchHandler({ router, req, createContext: ({ req }) => ({ req }), ...options });

  it.each([
    ['a path with no operation', 'http://x.test/nothing', undefined],
    ['a path outside the base path', 'http://x.test/elsewhere', '/api'],
    ['a path below the base path with no operation', 'http://x.test/api/nothing', '/api'],
  ] as const)('answers %s 404 without a body, and leaves the request a HEAD', async (_name, url, basePath) => {
    const req = new Request(url, { method: 'HEAD' });
    const response = await direct(req, basePath === undefined ? {} : { basePath });
    expect(response.status).toBe(404);
    expect(response.body).toBeNull();
    expect(req.method).toBe('HEAD');
  });

  // What its GET gets there: a 405 naming the POST (docs/contract.md#body-limits).
  it.each([
    ['at the root', 'http://x.test/save', undefined],
    ['below the base path', 'http://x.test/api/save', '/api'],
  ] as const)('answers a path whose operation is a POST (%s) 405 with Allow: POST, without a body, and leaves the request a HEAD', async (_name, url, basePath) => {
    const req = new Request(url, { method: 'HEAD' });
    const response = await direct(req, basePath === undefined ? {} : { basePath });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(response.body).toBeNull();
    expect(req.method).toBe('HEAD');
  });

  it.each([
    ['sealed', (req: Request) => Object.seal(req)],
    ['frozen', (req: Request) => Object.freeze(req)],
    ['not extensible', (req: Request) => Object.preventExtensions(req)],
  ] as const)('answers a HEAD on a %s request as its GET', async (_name, seal) => {
    for (const [headers, status] of [[{ authorization: 'Bearer user' }, 200], [{}, 401]] as const) {
      const req = seal(new Request('http://x.test/me', { method: 'HEAD', headers }));
      const response = await direct(req);
      expect(response.status).toBe(status);
      expect(response.body).toBeNull();
      expect(req.method).toBe('HEAD');
    }
  });

  it('hands onError the request as it came: a HEAD', async () => {
    const seen: string[] = [];
    const response = await direct(new Request('http://x.test/nothing', { method: 'HEAD' }), { onError: ({ req }) => void seen.push(req.method) });
    expect(response.status).toBe(404);
    expect(seen).toEqual(['HEAD']);
  });
});

describe('HEAD on the Node REST handler', () => {
  it('hands onError the request as it came: a HEAD', async () => {
    const seen: string[] = [];
    const rest = createOAuth2OpenApiHttpHandler({
      router,
      basePath: '/api',
      createContext: ({ req }) => ({ req }),
      onError: ({ req }) => void seen.push(req.method),
    });
    const server = createServer((req, res) => void rest(req, res));
    const origin = await servingOnLoopback(server);
    try {
      expect((await fetch(`${origin}/api/nothing`, { method: 'HEAD' })).status).toBe(404);
      expect(seen).toEqual(['HEAD']);
    } finally {
      await closing(server);
    }
  });
});
