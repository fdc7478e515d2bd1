/**
 * A verifier sees the request its credential came with on every face, the REST ones included:
 * the method and URL of the route the client called, and its headers (docs/contract.md#verified-readers).
 */
import { request as httpRequest } from 'node:http';
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
/** `GET /items` behind `reader`'s scope `items`. */
const listItems = (reader: typeof auth) =>
  t.procedure
    .meta({ openapi: { method: 'GET', path: '/items' } })
    .use(reader.withScopes('items'))
    .input(z.void())
    .output(z.string())
    .query(() => 'listed');
const router = t.router({
  listItems: listItems(auth),
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

// "the reader's `origin` option, else `http://` + `Host`, then the request target": a target
// `//tenant-b.example/…` is an origin-form path (RFC 9112 §3.2.1) that the Node faces route as
// `/…`; its first segment is no host, and must not become the URL's (a verifier picking its tenant
// by host would take one the `Host` header never named).
describe.each([
  ['trpc-standalone', '//tenant-b.example/trpc/listItems'],
  ['rest-standalone', '//tenant-b.example/api/items'],
] as const)('on the %s face, a request target %s with Host tenant-a.example', (face, target) => {
  it("gives the verifier a URL on the Host header's host", async () => {
    expect(await rawGet(running[face].origin, target, 'tenant-a.example')).toBe(200);
    expect(new URL(seen.at(-1)!.url).host).toBe('tenant-a.example');
  });
});

// Behind a proxy that strips a path prefix, `origin` and `pathPrefix` give the URL the client used
// (docs/contract.md#verified-readers), on every face alike.
describe('with origin and pathPrefix', () => {
  const prefixed = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { items: 'Items' }, verify, origin: 'https://API.example', pathPrefix: '/edge/' });
  const prefixedRouter = t.router({ listItems: listItems(prefixed) });
  let faces: Record<Face, RunningFace>;
  beforeAll(async () => {
    faces = await serveFaces(prefixedRouter, FACES);
  });
  afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

  it.each(FACES)('on the %s face, the path goes under the origin and the prefix', async (face) => {
    const server = faces[face];
    expect((await call(server, 'listItems', { headers: { authorization: 'Bearer good' } })).status).toBe(200);
    const seenUrl = new URL(seen.at(-1)!.url);
    expect(seenUrl.origin).toBe('https://api.example');
    expect(seenUrl.pathname.startsWith('/edge/')).toBe(true);
    expect(new URL(routeOf(server, 'listItems').url).pathname.endsWith(seenUrl.pathname.slice('/edge'.length))).toBe(true);
  });
});
