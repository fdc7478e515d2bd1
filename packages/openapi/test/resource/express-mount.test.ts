/**
 * The metadata answered by a Node handler mounted below a path by Express
 * (`app.use('/api', handler)`), over loopback: it is served at the origin's well-known paths only
 * (RFC 9728 §3.1), never at a path below the mount path that reads as one once Express has cut the
 * mount path off `req.url` (docs/contract.md#protected-resource-metadata).
 */
import type { Server } from 'node:http';
import express from 'express';
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { createOAuth2HTTPHandler, createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';
import { RESOURCE_METADATA_PATH, type ProtectedResourceMetadata } from '../../src/index.js';
import { AUTHORIZATION_SERVER_METADATA_PATH } from '../../src/resource/well-known.js';

const t = initTRPC.context<{ req?: unknown }>().meta<{ openapi?: { method: 'GET'; path: `/${string}` } }>().create();
const router = t.router({
  hello: t.procedure.meta({ openapi: { method: 'GET', path: '/hello' } }).input(z.void()).output(z.string()).query(() => 'hi'),
});
const resourceMetadata = { resource: 'https://api.example/api', authorization_servers: ['https://as.example'] } as unknown as ProtectedResourceMetadata;
const authorizationServerMetadata = { issuer: 'https://as.example', token_endpoint: 'https://as.example/token' } as never;

const WELL_KNOWN = [
  RESOURCE_METADATA_PATH,
  `${RESOURCE_METADATA_PATH}/api`,
  AUTHORIZATION_SERVER_METADATA_PATH,
];

let server: Server;
let origin = '';
beforeAll(async () => {
  const app = express();
  const options = { router, resourceMetadata, authorizationServerMetadata, createContext: ({ req }: { req: unknown }) => ({ req }) };
  app.use('/api', createOAuth2OpenApiHttpHandler(options));
  const trpc = createOAuth2HTTPHandler(options);
  app.use('/trpc', (req, res) => trpc(req, res));
  // What else the application answers: a 404 of its own for any path no handler took.
  app.use((_req, res) => void res.status(404).json({ from: 'app' }));
  server = app.listen(0, '127.0.0.1');
  origin = `http://127.0.0.1:${await listening(server)}`;
});
afterAll(() => closing(server));

describe.each(['/api', '/trpc'])('a handler mounted at %s by Express', (mount) => {
  it.each(WELL_KNOWN)(`does not answer the metadata at ${mount}%s, a path below its mount path`, async (path) => {
    const response = await fetch(`${origin}${mount}${path}`);
    const body = await response.text();
    expect(response.status).toBe(404);
    expect(body).not.toContain('authorization_servers');
    expect(body).not.toContain('token_endpoint');
  });

  it('still serves its own routes', async () => {
    const response = await fetch(mount === '/api' ? `${origin}/api/hello` : `${origin}/trpc/hello`);
    expect(response.status).toBe(200);
  });
});

describe('the same handlers mounted at the root by Express', () => {
  let root: Server;
  let rootOrigin = '';
  beforeAll(async () => {
    const app = express();
    app.use(createOAuth2OpenApiHttpHandler({ router, resourceMetadata, authorizationServerMetadata, basePath: '/api', createContext: ({ req }) => ({ req }) }));
    root = app.listen(0, '127.0.0.1');
    rootOrigin = `http://127.0.0.1:${await listening(root)}`;
  });
  afterAll(() => closing(root));

  it.each(WELL_KNOWN)('answer the metadata at %s', async (path) => {
    const response = await fetch(`${rootOrigin}${path}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(path.startsWith(AUTHORIZATION_SERVER_METADATA_PATH) ? authorizationServerMetadata : resourceMetadata);
  });
});
