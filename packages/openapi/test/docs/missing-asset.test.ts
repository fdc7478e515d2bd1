/**
 * A file of swagger-ui-dist that is not there (a release without it, a deployment that left it
 * out) is a 404 with the safe headers on both docs adapters, for GET and HEAD alike, never a 500
 * or a 200 whose body never comes; and no request path, however it spells `..` or a separator,
 * makes either adapter read a file outside swagger-ui-dist (docs/contract.md#openapi).
 *
 * The file system is the real one but for `index.css`, which reads as missing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, sep } from 'node:path';
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rawRequest } from '@trpc-oauth2/test-kit';

/** Every path the adapters asked the file system for. */
const touched = vi.hoisted(() => [] as string[]);
const missing = (path: string) => path.endsWith('index.css');
const enoent = (path: string) => Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });

vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  const gate =
    <F extends (path: never, ...rest: never[]) => Promise<unknown>>(real: F) =>
    (path: unknown, ...rest: unknown[]) => {
      if (typeof path === 'string') touched.push(path);
      if (typeof path === 'string' && missing(path)) return Promise.reject(enoent(path));
      return (real as unknown as (...args: unknown[]) => Promise<unknown>)(path, ...rest);
    };
  return { ...fs, default: fs, open: gate(fs.open), readFile: gate(fs.readFile) };
});
vi.mock('node:fs', async (original) => {
  const fs = await original<typeof import('node:fs')>();
  const createReadStream = (path: unknown, ...rest: unknown[]) => {
    if (typeof path === 'string') touched.push(path);
    if (typeof path === 'string' && missing(path)) {
      const stream = new PassThrough();
      queueMicrotask(() => stream.destroy(enoent(path)));
      return stream;
    }
    return (fs.createReadStream as (...args: unknown[]) => unknown)(path, ...rest);
  };
  return { ...fs, default: { ...fs, createReadStream }, createReadStream };
});

const { createDocsFetchHandler } = await import('../../src/docs/index.js');
const { createDocsHandler, swaggerUiAssets } = await import('../../src/docs/node.js');

const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const OPTIONS = { documents: [{ url: '/openapi.json', document: { openapi: '3.1.0', info: { title: 'T', version: '1' }, paths: {} } }] } as const;
const NEXT_404 = JSON.stringify({ message: 'Not found', code: 'NOT_FOUND' });

const faces: Record<string, { origin: string; close: () => Promise<void> }> = {};
beforeAll(async () => {
  const docs = createDocsHandler(OPTIONS);
  // What follows the docs in an application: its router, which answers 404 for a path it has not.
  const node = createServer((req, res) => docs(req, res, () => res.writeHead(404, { 'content-type': 'application/json' }).end(NEXT_404)));
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  faces.node = { origin: `http://127.0.0.1:${(node.address() as AddressInfo).port}`, close: () => new Promise((resolve) => node.close(() => resolve())) };
  const handle = createDocsFetchHandler({ ...OPTIONS, assets: swaggerUiAssets() });
  const fetchServer = serve({ fetch: async (req) => (await handle(req)) ?? new Response(NEXT_404, { status: 404 }), port: 0, hostname: '127.0.0.1' }) as Server;
  await new Promise((resolve) => fetchServer.once('listening', resolve));
  faces.fetch = { origin: `http://127.0.0.1:${(fetchServer.address() as AddressInfo).port}`, close: () => new Promise((resolve) => fetchServer.close(() => resolve())) };
});
afterAll(async () => {
  for (const face of Object.values(faces)) await face.close();
});

describe.each(['node', 'fetch'])('the docs on the %s adapter', (name) => {
  it('answer a file of swagger-ui-dist that is not there with a 404 and the safe headers, for GET and HEAD', async () => {
    const get = await fetch(`${faces[name]!.origin}/docs/index.css`);
    expect(get.status).toBe(404);
    expect(get.headers.get('content-type')).toBe('application/json');
    expect(get.headers.get('cache-control')).toBe('no-cache');
    expect(get.headers.get('x-content-type-options')).toBe('nosniff');
    expect(get.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await get.json()).toEqual({ message: 'Not found', code: 'NOT_FOUND' });
    const head = await fetch(`${faces[name]!.origin}/docs/index.css`, { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(await head.text()).toBe('');
    // The files that are there are still served, the HEAD of one without its content.
    const present = await fetch(`${faces[name]!.origin}/docs/swagger-ui.css`);
    expect(present.status).toBe(200);
    expect((await present.text()).length).toBeGreaterThan(100);
    const presentHead = await fetch(`${faces[name]!.origin}/docs/swagger-ui.css`, { method: 'HEAD' });
    expect(presentHead.status).toBe(200);
    expect(await presentHead.text()).toBe('');
  });

  it.each([
    '/docs/../package.json',
    '/docs/%2e%2e/package.json',
    '/docs/%2E%2E%2Fpackage.json',
    '/docs/..%2fpackage.json',
    '/docs/..\\package.json',
    '/docs/%5c..%5cpackage.json',
    '/docs/swagger-ui.css/..%2f..%2fpackage.json',
    '/docs/..%2f..%2f..%2f..%2fetc%2fpasswd',
    '/docs/%2e%2e%5c%2e%2e%5cetc%5cpasswd',
  ])('never read a file outside swagger-ui-dist for %s, sent as it is: a 404', async (path) => {
    touched.length = 0;
    const { status, body } = await rawRequest(faces[name]!.origin, { path });
    // A 400 is the Fetch runtime's own refusal of a target with a raw backslash, before any handler.
    expect([404, ...(path.includes('\\') ? [400] : [])], path).toContain(status);
    expect(body, path).not.toContain('"name"');
    expect(touched.filter((file) => !file.startsWith(`${DIST}${sep}`)), path).toEqual([]);
  });
});

describe('swaggerUiAssets()', () => {
  it('reads nothing for a name outside SWAGGER_UI_ASSETS, however it is spelled: null', async () => {
    const assets = swaggerUiAssets();
    touched.length = 0;
    for (const file of ['../package.json', '..\\package.json', 'package.json', '/etc/passwd', '', 'swagger-ui.css/../../package.json', '__proto__', 'constructor']) {
      expect(await assets(file as never), file).toBeNull();
    }
    expect(touched).toEqual([]);
  });

  it('is null for a listed file that is not there, and the bytes of one that is', async () => {
    const assets = swaggerUiAssets();
    expect(await assets('index.css')).toBeNull();
    expect(((await assets('swagger-ui.css')) as Uint8Array).byteLength).toBeGreaterThan(100);
  });
});
