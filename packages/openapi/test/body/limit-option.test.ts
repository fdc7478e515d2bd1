/**
 * A handler's `maxBodySize` is a whole number of bytes or `null`: any other value is a
 * `TypeError` where it is given, never a limit that refuses nothing (docs/contract.md#body-limits).
 */
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FACES, isRest, serveFace, type RunningFace } from '../support/faces.js';
import { bodyLimit, DEFAULT_MAX_BODY_SIZE } from '../../src/body/limit.js';
import { createOAuth2HTTPHandler } from '../../src/adapters/create-oauth2-http-handler.js';
import { createOAuth2OpenApiHttpHandler } from '../../src/adapters/create-oauth2-openapi-http-handler.js';
import { oauth2FetchRequestHandler } from '../../src/adapters/oauth2-fetch-request-handler.js';

const t = initTRPC.meta<OpenApiMeta>().create();
const router = t.router({ ping: t.procedure.query(() => 'pong') });
const WRONG = [Number.NaN, -1, 0.5, Number.POSITIVE_INFINITY];

describe('maxBodySize', () => {
  it.each(WRONG)('%s is refused by every handler', async (maxBodySize) => {
    expect(() => createOAuth2HTTPHandler({ router, maxBodySize })).toThrow(/maxBodySize must be a whole number of bytes/);
    expect(() => createOAuth2OpenApiHttpHandler({ router, maxBodySize })).toThrow(/maxBodySize must be a whole number of bytes/);
    const req = new Request('http://127.0.0.1/trpc/ping');
    await expect(oauth2FetchRequestHandler({ router, req, endpoint: '/trpc', maxBodySize })).rejects.toThrow(/maxBodySize must be a whole number of bytes/);
  });

  it('is the default when not given, none for null, and as given otherwise', () => {
    expect(bodyLimit(undefined)).toBe(DEFAULT_MAX_BODY_SIZE);
    expect(bodyLimit(null)).toBeNull();
    expect(bodyLimit(0)).toBe(0);
    expect(bodyLimit(1_000_000)).toBe(1_000_000);
  });
});

// A limit of 0 bytes is a limit: a body of any length is refused on every face. tRPC's own Node
// adapter reads 0 as no limit at all, so the standalone face, which once handed its limit to it,
// read every JSON body whatever the limit said.
const echo = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ isDev: false });
const echoRouter = echo.router({
  echo: echo.procedure
    .meta({ openapi: { method: 'POST', path: '/echo' } })
    .input(z.object({ a: z.number() }).optional())
    .output(z.unknown())
    .mutation(({ input }) => input ?? null),
});

describe.each(FACES)('maxBodySize 0 on %s', (face) => {
  let running: RunningFace;
  beforeAll(async () => {
    running = await serveFace(echoRouter, face, { maxBodySize: 0 });
  });
  afterAll(() => running.close());
  const url = () => `${running.origin}${isRest(face) ? '/api/echo' : '/trpc/echo'}`;

  it('refuses a JSON body of any length with 413', async () => {
    const response = await fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(response.status).toBe(413);
  });

  it('does not refuse an empty one for its length', async () => {
    const response = await fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(response.status).not.toBe(413);
  });
});
