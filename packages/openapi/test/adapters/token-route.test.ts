import { revocationEndpoint, tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { restBodyLimit } from '../../src/adapters/token-endpoint-index.js';
import { indexRestEndpoints } from '../../src/adapters/rest-routes.js';

// docs/contract.md#body-limits: a token endpoint's own limit holds on every request that
// trpc-to-openapi routes to it, found by trpc-to-openapi's own matching.

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const authenticateClient = () => ({ id: null });
const token = (path: `/${string}`, maxBodySize: number) =>
  tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path } }), { authenticateClient, maxBodySize })
    .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' }))
    .build();
const router = t.router({
  token: token('/v1.0/token', 2_000),
  revoke: revocationEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/revoke/' } }), { authenticateClient, tokenTypes: ['refresh_token'], revoke: () => undefined, maxBodySize: 1_000 }),
  // Declared first, it takes every one-segment POST path: trpc-to-openapi routes `/shadowed` here.
  catchAll: t.procedure.meta({ openapi: { method: 'POST', path: '/{name}' } }).input(z.object({ name: z.string() })).output(z.object({})).mutation(() => ({})),
  shadowed: token('/shadowed', 500),
});
const endpoints = indexRestEndpoints(router);

describe('restBodyLimit', () => {
  it.each(['/v1.0/token', '/V1.0/TOKEN', '/v1.0/Token/', '/v1x0/token'])("gives the token endpoint's limit to %s, which trpc-to-openapi routes to it", (path) => {
    expect(restBodyLimit(endpoints, 'POST', path, 100_000)).toBe(2_000);
  });

  it.each(['/revoke', '/REVOKE/', '/Revoke'])("gives the revocation endpoint's limit to %s", (path) => {
    expect(restBodyLimit(endpoints, 'POST', path, 100_000)).toBe(1_000);
  });

  it.each([
    ['another method', 'GET', '/v1.0/token'],
    ['another path', 'POST', '/v1.0/tokens'],
    ['two trailing slashes, which trpc-to-openapi routes nowhere', 'POST', '/v1.0/token//'],
    ['a path the first matching operation takes', 'POST', '/shadowed'],
  ])('keeps the handler-wide limit for %s', (_name, method, path) => {
    expect(restBodyLimit(endpoints, method, path, 100_000)).toBe(100_000);
  });

  it('keeps the handler-wide limit for a router whose endpoints have no REST route', () => {
    const tRPCOnly = indexRestEndpoints(t.router({ token: tokenEndpoint(t.procedure, { authenticateClient, maxBodySize: 10 }).grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' })).build() }));
    expect(restBodyLimit(tRPCOnly, 'POST', '/token', null)).toBeNull();
  });
});
