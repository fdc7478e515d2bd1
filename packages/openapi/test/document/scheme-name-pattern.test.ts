/**
 * A security scheme's name is a key of `components.securitySchemes`, which OpenAPI 3.1 allows
 * only as `^[a-zA-Z0-9._-]+$`: a reader or an own scheme named otherwise stops generation with a
 * `TypeError` naming it, rather than a document no validator accepts (docs/contract.md#openapi).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';

const t = initTRPC.meta<OpenApiMeta>().create();
const options = { title: 'Scheme names', version: '1.0.0', baseUrl: 'http://127.0.0.1/api/' };
const COMPONENT_NAME = /^[a-zA-Z0-9._-]+$/;

function documentOf(schemeName: string, securitySchemes?: Record<string, { type: 'apiKey'; in: 'header'; name: string }>) {
  const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me' }, schemeName, manualScopeCheck: true });
  const router = t.router({
    me: t.procedure.use(auth).use(auth.requireScopes('me')).meta({ openapi: { method: 'GET', path: '/me', protect: true } }).input(z.void()).output(z.string()).query(() => 'ok'),
  });
  return () => generateOAuth2OpenApiDocument(router, { ...options, ...(securitySchemes === undefined ? {} : { securitySchemes }) });
}

describe('scheme names OpenAPI cannot hold', () => {
  it.each(['Password Bearer', 'oauth2/password', 'bearer~1', 'Über', 'a:b', ''])('a reader named %j throws a TypeError naming it', (schemeName) => {
    expect(documentOf(schemeName)).toThrow(TypeError);
    expect(documentOf(schemeName)).toThrow(`"${schemeName}" is not an OpenAPI component name`);
  });

  it('an own scheme so named throws too', () => {
    expect(documentOf('Password', { 'Api Key': { type: 'apiKey', in: 'header', name: 'x-api-key' } })).toThrow('"Api Key" is not an OpenAPI component name');
  });

  it('any scheme name either stops generation or gives a document that validates (property)', async () => {
    const validator = new Validator();
    const name = fc.string({ unit: fc.constantFrom(...'aZ09._- /~:#é'.split('')), minLength: 0, maxLength: 8 });
    await fc.assert(
      fc.asyncProperty(name, async (schemeName) => {
        let document: unknown;
        try {
          document = documentOf(schemeName)();
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          expect(COMPONENT_NAME.test(schemeName)).toBe(false);
          return;
        }
        const result = await validator.validate(JSON.parse(JSON.stringify(document)));
        expect(result.errors).toBeUndefined();
        expect(result.valid).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});
