import { Validator } from '@seriousme/openapi-schema-validator';
import { anyOf, oauth2AuthorizationCodeBearer, oauth2PasswordBearer, type TokenVerifier } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';

// docs/contract.md#openapi: an `anyOf` step documents each scheme it accepts as an alternative requirement.
const verify: TokenVerifier<{ scopes: string[] }> = async () => ({ scopes: ['me', 'items'] });
const scopes = { me: 'Read me', items: 'Read items' };
const own = oauth2PasswordBearer({ tokenUrl: '/api/token', scopes, schemeName: 'Own', verify });
const external = oauth2AuthorizationCodeBearer({ authorizationUrl: '/oidc/auth', tokenUrl: '/oidc/token', scopes, schemeName: 'External', verify });
const auth = anyOf(own, external);
const t = initTRPC.meta<OpenApiMeta>().create();
const router = t.router({
  me: t.procedure
    .use(auth)
    .use(auth.requireScopes('me'))
    .meta({ openapi: { method: 'GET', path: '/me' } })
    .input(z.void())
    .output(z.string())
    .query(() => 'me'),
  items: t.procedure
    .use(auth.withScopes('me', 'items'))
    .meta({ openapi: { method: 'GET', path: '/items' } })
    .input(z.void())
    .output(z.string())
    .query(() => 'items'),
});
const document = generateOAuth2OpenApiDocument(router, { title: 'anyOf', version: '1', baseUrl: '/api' });

describe('anyOf in the document', () => {
  it('declares every scheme and lists them as alternatives with the same scopes', async () => {
    expect(Object.keys(document.components?.securitySchemes ?? {})).toEqual(['Own', 'External']);
    expect(document.components?.securitySchemes?.External).toEqual(external.securityScheme);
    expect(document.paths?.['/me']?.get?.security).toEqual([{ Own: ['me'] }, { External: ['me'] }]);
    expect(document.paths?.['/items']?.get?.security).toEqual([{ Own: ['me', 'items'] }, { External: ['me', 'items'] }]);
    expect(Object.keys(document.paths?.['/items']?.get?.responses ?? {})).toEqual(expect.arrayContaining(['401', '403']));
    expect(await new Validator().validate(JSON.parse(JSON.stringify(document)))).toEqual({ valid: true });
  });
});
