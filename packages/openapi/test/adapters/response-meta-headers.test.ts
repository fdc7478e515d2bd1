/**
 * docs/contract.md#reading-the-authorization-header and #challenges, on every face: a header an
 * application's own `responseMeta` set is kept whatever the case of its name (RFC 9110 §5.1), as
 * a `Headers` (whose names are lower case) or a record; and an unstreamed tRPC batch whose calls
 * are refused for different missing scopes carries one challenge naming all of them, so that the
 * client asks once for every scope the batch needs (RFC 6750 §3).
 */
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { FACES, TRPC_FACES, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { resourceMetadataUrl } from '../../src/index.js';

const M = resourceMetadataUrl('https://api.example.test/api');
const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
const auth = oauth2PasswordBearer({
  tokenUrl: '/token',
  scopes: { a: 'A', b: 'B', c: 'C' },
  resourceMetadata: M,
  verify: async (token: string) => {
    if (token === 'none') return { scopes: [] };
    if (token === 'a') return { scopes: ['a'] };
    throw invalidTokenError('The access token is invalid');
  },
});
const router = t.router({
  qa: t.procedure.meta({ openapi: { method: 'GET', path: '/qa' } }).use(auth.withScopes('a')).input(z.void()).output(z.string()).query(() => 'a'),
  qb: t.procedure.meta({ openapi: { method: 'GET', path: '/qb' } }).use(auth.withScopes('b')).input(z.void()).output(z.string()).query(() => 'b'),
  qbc: t.procedure.use(auth.withScopes('b', 'c')).input(z.void()).output(z.string()).query(() => 'bc'),
  open: t.procedure.input(z.void()).output(z.string()).query(() => 'open'),
});

const path = (face: Face, procedure: string) => (face.startsWith('rest') ? `/api/${procedure}` : `/trpc/${procedure}`);
const challengeOf = async (server: RunningFace, target: string, token: string) => {
  const response = await fetch(`${server.origin}${target}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, challenge: response.headers.get('www-authenticate') };
};

describe.each([
  ['a Headers', () => new Headers({ 'WWW-Authenticate': 'Custom realm="app"' })],
  ['a record in lower case', () => ({ 'www-authenticate': 'Custom realm="app"' })],
])("an application's responseMeta that sets WWW-Authenticate as %s", (_, headers) => {
  let servers: Record<Face, RunningFace>;
  beforeAll(async () => {
    servers = await serveFaces(router, FACES, { responseMeta: ({ errors }) => (errors.length > 0 ? { headers: headers() } : {}) });
  });
  afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

  it.each(FACES)('%s: keeps it, alone', async (face) => {
    expect(await challengeOf(servers[face], path(face, 'qa'), 'bad')).toEqual({ status: 401, challenge: 'Custom realm="app"' });
  });
});

describe.each(TRPC_FACES)('an unstreamed batch over the %s adapter', (face) => {
  let server: RunningFace;
  beforeAll(async () => {
    server = (await serveFaces(router, [face]))[face];
  });
  afterAll(() => server.close());

  const batch = (procedures: string[]) => `/trpc/${procedures.join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`;

  it('refused for scope a and for scopes b c names all three in one challenge', async () => {
    expect(await challengeOf(server, batch(['qa', 'qbc']), 'none')).toEqual({
      status: 403,
      challenge: `Bearer error="insufficient_scope", scope="a b c", resource_metadata="${M}"`,
    });
  });

  it('names a scope two calls lack once', async () => {
    expect((await challengeOf(server, batch(['qb', 'qbc', 'qa']), 'none')).challenge).toBe(
      `Bearer error="insufficient_scope", scope="b c a", resource_metadata="${M}"`,
    );
  });

  it('with one call refused and another answered, names the refused call\'s scopes', async () => {
    expect(await challengeOf(server, batch(['qa', 'qb', 'open']), 'a')).toEqual({
      status: 207,
      challenge: `Bearer error="insufficient_scope", scope="b", resource_metadata="${M}"`,
    });
  });

  it("with refusals of different kinds, carries the first refused call's challenge", async () => {
    expect((await challengeOf(server, batch(['qb', 'qa']), 'bad')).challenge).toBe(
      `Bearer error="invalid_token", error_description="The access token is invalid", resource_metadata="${M}"`,
    );
  });
});
