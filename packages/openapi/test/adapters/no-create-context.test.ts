/**
 * docs/contract.md#reading-the-authorization-header: the handlers of this package given no
 * `createContext` make the context the request alone, `{ req }`, on every face, so the readers
 * read its headers. tRPC's own adapters would pass `undefined`, where a reader can read nothing:
 * a router whose context declares nothing is served securely without writing one.
 */
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { FACES, call, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC.meta<OpenApiMeta>().create();
const auth = oauth2PasswordBearer({
  tokenUrl: '/token',
  scopes: { me: 'Read you', items: 'Read your items' },
  verify: async (token) => {
    if (token !== 'good') throw invalidTokenError('Unknown token');
    return { scopes: ['me'] };
  },
});
const router = t.router({
  me: t.procedure
    .meta({ openapi: { method: 'GET', path: '/me' } })
    .use(auth.withScopes('me'))
    .input(z.void())
    .output(z.string())
    .query(({ ctx }) => ctx.token),
  items: t.procedure
    .meta({ openapi: { method: 'GET', path: '/items' } })
    .use(auth.withScopes('items'))
    .input(z.void())
    .output(z.string())
    .query(() => 'items'),
});

describe.each(FACES)('%s given no createContext', (face: Face) => {
  let running: RunningFace;
  beforeAll(async () => {
    running = (await serveFaces(router, [face], { createContext: undefined }))[face];
  });
  afterAll(() => running.close());

  it('reads the credential of the request: 200 with the token on ctx', async () => {
    const answer = await call(running, 'me', { headers: { authorization: 'Bearer good' } });
    expect(answer.status).toBe(200);
    expect(answer.data).toBe('good');
  });

  it('refuses as it would with a createContext: 401, 401 invalid_token, 403', async () => {
    const missing = await call(running, 'me');
    expect([missing.status, missing.challenge]).toEqual([401, 'Bearer']);
    const refused = await call(running, 'me', { headers: { authorization: 'Bearer bad' } });
    expect(refused.status).toBe(401);
    expect(refused.challenge).toMatch(/^Bearer error="invalid_token"/);
    const lacking = await call(running, 'items', { headers: { authorization: 'Bearer good' } });
    expect(lacking.status).toBe(403);
    expect(lacking.challenge).toBe('Bearer error="insufficient_scope", scope="items"');
    expect(running.errors.map((error) => error.code)).not.toContain('INTERNAL_SERVER_ERROR');
  });
});
