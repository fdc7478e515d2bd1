/**
 * docs/contract.md#reading-the-authorization-header ("Getting the challenge onto the response"),
 * on every face: every `Set-Cookie` an application's own `responseMeta` sets reaches the response,
 * given as a `Headers` (which yields each cookie on its own) or as a record holding a list. On
 * every answer: an answered call, a refusal with its challenge, and a token endpoint's answer
 * and refusal, to which the handlers add no-store around that `responseMeta`.
 */
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { tokenEndpoint, tokenError } from '@trpc-oauth2/core/token-endpoint';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const COOKIES = ['session=abc; Path=/; HttpOnly', 'csrf=xyz; Path=/'];

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
const auth = oauth2PasswordBearer({ tokenUrl: '/token', verify: async () => ({ scopes: [] }) });
const router = t.router({
  open: t.procedure.meta({ openapi: { method: 'GET', path: '/open' } }).input(z.void()).output(z.string()).query(() => 'open'),
  guarded: t.procedure.meta({ openapi: { method: 'GET', path: '/guarded' } }).use(auth).input(z.void()).output(z.string()).query(() => 'guarded'),
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: 'app' }) })
    .grant('client_credentials', ({ form }) => {
      if (form.scopes.length > 0) throw tokenError('invalid_scope', 'Unknown scope');
      return { access_token: 'at', token_type: 'Bearer' };
    })
    .build(),
});

const INNERS: [string, () => Headers | Record<string, string[]>][] = [
  ['a Headers', () => {
    const headers = new Headers();
    for (const cookie of COOKIES) headers.append('set-cookie', cookie);
    return headers;
  }],
  ['a record holding a list', () => ({ 'set-cookie': [...COOKIES] })],
];

describe.each(INNERS)("an application's responseMeta that sets two cookies as %s", (_, headers) => {
  let servers: Record<Face, RunningFace>;
  beforeAll(async () => {
    servers = await serveFaces(router, FACES, { responseMeta: () => ({ headers: headers() as never }) });
  });
  afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

  const target = (face: Face, procedure: string) => `${servers[face].origin}${isRest(face) ? '/api' : '/trpc'}/${procedure}`;
  const answer = async (response: Response) => {
    await response.arrayBuffer();
    return {
      status: response.status,
      cookies: response.headers.getSetCookie(),
      challenge: response.headers.get('www-authenticate'),
      cacheControl: response.headers.get('cache-control'),
    };
  };
  const token = (face: Face, scope?: string) =>
    fetch(target(face, 'token'), { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) }) }).then(answer);

  it.each(FACES)('%s: keeps both on an answered call', async (face) => {
    expect(await answer(await fetch(target(face, 'open')))).toEqual({ status: 200, cookies: COOKIES, challenge: null, cacheControl: null });
  });

  it.each(FACES)('%s: keeps both on a refused call, alongside the challenge', async (face) => {
    expect(await answer(await fetch(target(face, 'guarded')))).toEqual({ status: 401, cookies: COOKIES, challenge: 'Bearer', cacheControl: null });
  });

  it.each(FACES)("%s: keeps both on a token endpoint's answer, alongside no-store", async (face) => {
    expect(await token(face)).toEqual({ status: 200, cookies: COOKIES, challenge: null, cacheControl: 'no-store' });
  });

  it.each(FACES)("%s: keeps both on a token endpoint's refusal, alongside no-store", async (face) => {
    expect(await token(face, 'unknown')).toEqual({ status: 400, cookies: COOKIES, challenge: null, cacheControl: 'no-store' });
  });
});
