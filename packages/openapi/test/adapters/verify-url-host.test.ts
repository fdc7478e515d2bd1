/**
 * docs/contract.md#verified-readers, "What a verifier sees": on the tRPC standalone adapter and the
 * REST Node handler, `request.url` is "the reader's `origin` option, else `http://` + `Host`, then
 * the request target". A request target `//tenant-b.example/…` is an origin-form path (RFC 9112
 * §3.2.1) that every Node face routes as `/…`: its first segment is no host, and must not become
 * the URL's. A verifier that picks its tenant by host (the contract's multi-tenant example, and a
 * `cacheVerifier` partition by host) would otherwise take a tenant the `Host` header never named.
 */
import { request as httpRequest } from 'node:http';
import { oauth2PasswordBearer, type Principal, type VerifyOptions } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveFace, type Face, type RunningFace } from '../support/faces.js';

const seen: string[] = [];
const verify = async (token: string, options?: VerifyOptions): Promise<Principal> => {
  seen.push(options!.request.url);
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
});

/** A raw GET with this request target and `Host` (fetch would set `Host` from the URL). */
function rawGet(origin: string, target: string, host: string): Promise<number> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path: target, method: 'GET', headers: { host, authorization: 'Bearer good' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

const NODE_FACES = { 'trpc-standalone': '//tenant-b.example/trpc/listItems', 'rest-standalone': '//tenant-b.example/api/items' } as const;
const running = {} as Record<keyof typeof NODE_FACES, RunningFace>;
beforeAll(async () => {
  for (const face of Object.keys(NODE_FACES) as (keyof typeof NODE_FACES)[]) running[face] = await serveFace(router, face as Face);
});
afterAll(() => Promise.all(Object.values(running).map((face) => face.close())));

describe.each(Object.keys(NODE_FACES) as (keyof typeof NODE_FACES)[])('on the %s face, a request target //tenant-b.example/… with Host tenant-a.example', (face) => {
  it("gives the verifier a URL on the Host header's host", async () => {
    expect(await rawGet(running[face].origin, NODE_FACES[face], 'tenant-a.example')).toBe(200);
    expect(new URL(seen.at(-1)!).host).toBe('tenant-a.example');
  });
});
