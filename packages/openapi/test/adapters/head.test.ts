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
