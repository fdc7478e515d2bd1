/**
 * A verifier sees the request its credential came with on every face, the REST ones included:
 * the method and URL of the route the client called, and its headers (docs/contract.md#verified-readers).
 */
import { oauth2PasswordBearer, type Principal, type VerifyOptions } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, call, routeOf, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const seen: { method: string; url: string; tenant: string | undefined }[] = [];
const verify = async (token: string, options?: VerifyOptions): Promise<Principal> => {
  seen.push({ method: options!.request.method, url: options!.request.url, tenant: options!.request.header('x-tenant') });
  if (token !== 'good') throw new Error('unexpected token');
  return { scopes: ['items'] };
};
const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { items: 'Items' }, verify });
const router = t.router({
  listItems: t.procedure
    .meta({ openapi: { method: 'GET', path: '/items' } })
    .use(auth.withScopes('items'))
    .input(z.void())
    .output(z.string())
    .query(() => 'listed'),
  addItem: t.procedure
    .meta({ openapi: { method: 'POST', path: '/items' } })
    .use(auth.withScopes('items'))
    .input(z.object({ name: z.string() }))
    .output(z.string())
    .mutation(({ input }) => input.name),
});

let running: Record<Face, RunningFace>;
beforeAll(async () => {
  running = await serveFaces(router, FACES);
});
afterAll(() => Promise.all(Object.values(running).map((face) => face.close())));

describe.each(FACES)('on the %s face', (face) => {
  it.each(['listItems', 'addItem'] as const)('%s: the method, the URL on this origin and the headers', async (procedure) => {
    const server = running[face];
    const body = procedure === 'addItem' ? JSON.stringify({ name: 'x' }) : undefined;
    const result = await call(server, procedure, {
      headers: { authorization: 'Bearer good', 'x-tenant': 'acme', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
    });
    expect(result.status).toBe(200);
    const { method, url } = routeOf(server, procedure);
    const last = seen.at(-1)!;
    expect(last.method).toBe(method);
    expect(last.tenant).toBe('acme');
    expect(new URL(last.url).origin).toBe(server.origin);
    // The standalone REST face of the harness mounts below /api by rewriting the target.
    expect(url.endsWith(new URL(last.url).pathname)).toBe(true);
  });
});
