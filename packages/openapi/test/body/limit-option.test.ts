/**
 * A handler's `maxBodySize` is a whole number of bytes or `null`: any other value is a
 * `TypeError` where it is given, never a limit that refuses nothing (docs/contract.md#body-limits).
 */
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
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
