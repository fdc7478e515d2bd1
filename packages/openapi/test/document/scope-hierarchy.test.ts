import { Validator } from '@seriousme/openapi-schema-validator';
import { oauth2Bearer, type TokenVerifier } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';

// docs/contract.md#scope-hierarchy: the document shows the scopes an operation declares, never
// what a hierarchy expands them to; the bearer reader for any flow is documented with its flows.
const verify: TokenVerifier<{ scopes: string[] }> = async () => ({ scopes: ['items:write'] });
const flows = {
  clientCredentials: { tokenUrl: '/oauth/token', scopes: { 'items:read': 'Read items', 'items:write': 'Write items', 'items:admin': 'Administer items' } },
  authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', scopes: { 'items:read': 'Read items', 'items:write': 'Write items', 'items:admin': 'Administer items' } },
};
const auth = oauth2Bearer({ flows, schemeName: 'Machines', implies: { 'items:admin': ['items:write'], 'items:write': ['items:read'] }, verify });
const t = initTRPC.meta<OpenApiMeta>().create();
const router = t.router({
  list: t.procedure
    .use(auth.withScopes('items:read'))
    .meta({ openapi: { method: 'GET', path: '/items' } })
    .input(z.void())
    .output(z.array(z.string()))
    .query(() => []),
  purge: t.procedure
    .use(auth)
    .use(auth.requireScopes('items:admin'))
    .meta({ openapi: { method: 'DELETE', path: '/items' } })
    .input(z.void())
    .output(z.number())
    .mutation(() => 0),
});
const document = generateOAuth2OpenApiDocument(router, { title: 'hierarchy', version: '1', baseUrl: '/api' });

describe('a scope hierarchy in the document', () => {
  it('declares the reader with every flow it was given, and each operation with the scopes it declared', async () => {
    expect(document.components?.securitySchemes?.Machines).toEqual({ type: 'oauth2', flows });
    expect(document.paths?.['/items']?.get?.security).toEqual([{ Machines: ['items:read'] }]);
    // `items:admin` implies `items:write` and `items:read`: the requirement still names only what was declared.
    expect(document.paths?.['/items']?.delete?.security).toEqual([{ Machines: ['items:admin'] }]);
    expect(await new Validator().validate(JSON.parse(JSON.stringify(document)))).toEqual({ valid: true });
  });
});
