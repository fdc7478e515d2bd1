/**
 * Readers beside the application's own security schemes (docs/contract.md#openapi): an API key
 * and HTTP basic passed in `securitySchemes`, operations marked `protect: true`. Each scheme is
 * documented, none is dropped, and the document stays valid.
 */
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { initTRPC } from '@trpc/server';
import fc from 'fast-check';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read you', items: 'Read your items' }, manualScopeCheck: true });
const maybe = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read you', items: 'Read your items' }, autoError: false, manualScopeCheck: true });
const OWN = {
  ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
  Basic: { type: 'http', scheme: 'basic' },
} as const;
const OWN_REQUIREMENTS = [{ ApiKey: [] }, { Basic: [] }];
const options = { title: 'mixed', version: '1.0.0', baseUrl: 'http://127.0.0.1/api' };

const get = (path: `/${string}`, protect?: boolean) => ({ openapi: { method: 'GET', path, ...(protect === undefined ? {} : { protect }) } }) as const;
const out = z.string();

const router = t.router({
  stats: t.procedure.meta(get('/stats', true)).input(z.void()).output(out).query(() => 'own scheme only'),
  me: t.procedure.meta(get('/me', true)).use(auth).use(auth.requireScopes('me')).input(z.void()).output(out).query(() => 'both'),
  items: t.procedure.meta(get('/items')).use(auth.withScopes('items')).input(z.void()).output(out).query(() => 'reader only'),
  maybe: t.procedure.meta(get('/maybe', true)).use(maybe).input(z.void()).output(out).query(() => 'optional reader and own'),
  open: t.procedure.meta(get('/open')).input(z.void()).output(out).query(() => 'public'),
  closed: t.procedure.meta(get('/closed', false)).input(z.void()).output(out).query(() => 'protect: false'),
});

type Operation = { security?: unknown; responses: Record<string, { description: string; headers?: Record<string, { required: boolean }> }> };
const operation = (document: object, path: string) => (document as { paths: Record<string, { get: Operation }> }).paths[path]!.get;

describe('a document mixing readers with your own schemes', () => {
  const document = generateOAuth2OpenApiDocument(router, { ...options, securitySchemes: OWN });

  it('declares every scheme: yours and each reader', () => {
    expect(Object.keys(document.components?.securitySchemes ?? {}).sort()).toEqual(['ApiKey', 'Basic', 'OAuth2PasswordBearer']);
    expect(document.components?.securitySchemes?.ApiKey).toEqual(OWN.ApiKey);
  });

  it.each([
    ['/stats', OWN_REQUIREMENTS],
    // The reader refuses a request without its token: an own scheme is passed with it, never alone.
    ['/me', [{ OAuth2PasswordBearer: ['me'], ApiKey: [] }, { OAuth2PasswordBearer: ['me'], Basic: [] }]],
    ['/items', [{ OAuth2PasswordBearer: ['items'] }]],
    ['/maybe', [{ OAuth2PasswordBearer: [] }, ...OWN_REQUIREMENTS]],
    ['/open', undefined],
    ['/closed', undefined],
  ])('lists the security of %s', (path, security) => {
    expect(operation(document, path).security).toEqual(security);
  });

  it('keeps trpc-to-openapi 401 and 403 on a protect: true operation without a reader', () => {
    const { responses } = operation(document, '/stats');
    expect(responses['401']?.description).toBe('Authorization not provided');
    expect(responses['403']?.description).toBe('Insufficient access');
  });

  it("lists the reader's challenge and your scheme's refusal on an operation with both", () => {
    const { responses } = operation(document, '/me');
    expect(responses['401']?.description).toBe('Not authenticated; Authorization not provided');
    // Your scheme's refusal sends no Bearer challenge: the header is documented, not required.
    expect(responses['401']?.headers?.['WWW-Authenticate']?.required).toBe(false);
    expect(responses['403']?.description).toBe('Not enough permissions; Insufficient access');
  });

  it('writes no 401 or 403 on operations with neither', () => {
    for (const path of ['/open', '/closed']) expect(Object.keys(operation(document, path).responses)).not.toContain('401');
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(await new Validator().validate(JSON.parse(JSON.stringify(document)))).toEqual({ valid: true });
  });

  it("keeps trpc-to-openapi's default scheme for protect: true without a reader when you pass none", async () => {
    const defaulted = generateOAuth2OpenApiDocument(router, options);
    expect(defaulted.components?.securitySchemes?.Authorization).toEqual({ type: 'http', scheme: 'bearer' });
    expect(operation(defaulted, '/stats').security).toEqual([{ Authorization: [] }]);
    // The default stands in for your schemes only where there is no reader: beside a reader,
    // `protect: true` without schemes of your own changes nothing (docs/contract.md#openapi).
    expect(operation(defaulted, '/me').security).toEqual([{ OAuth2PasswordBearer: ['me'] }]);
    expect(operation(defaulted, '/me').responses['401']?.description).toBe('Not authenticated');
    expect(operation(defaulted, '/me').responses['403']?.description).toBe('Not enough permissions');
    expect(operation(defaulted, '/maybe').security).toEqual([{ OAuth2PasswordBearer: [] }, {}]);
    expect(operation(defaulted, '/maybe').responses).not.toHaveProperty('401');
    expect(await new Validator().validate(JSON.parse(JSON.stringify(defaulted)))).toEqual({ valid: true });
  });

  it('adds no scheme of its own when every protect: true operation has a reader', () => {
    const readersOnly = t.router({ me: router.me, items: router.items });
    const readers = generateOAuth2OpenApiDocument(readersOnly, options);
    expect(Object.keys(readers.components?.securitySchemes ?? {})).toEqual(['OAuth2PasswordBearer']);
    expect(operation(readers, '/me').security).toEqual([{ OAuth2PasswordBearer: ['me'] }]);
  });
});

describe('every arrangement of readers, scopes, protect and your own schemes', () => {
  const arrangement = fc.record({
    reader: fc.constantFrom('none', 'required', 'optional'),
    scopes: fc.subarray(['me', 'items'] as const),
    protect: fc.constantFrom(undefined, true, false),
  });
  const own = fc.subarray(['ApiKey', 'Basic'] as const);

  it('documents each scheme where it applies, drops none and invents none', () => {
    fc.assert(
      fc.property(fc.array(arrangement, { minLength: 1, maxLength: 5 }), own, (ops, ownNames) => {
        const procedures = Object.fromEntries(
          ops.map((op, i) => {
            let builder = t.procedure.meta(get(`/op${i}`, op.protect));
            const reader = op.reader === 'optional' ? maybe : auth;
            if (op.reader !== 'none') builder = builder.use(reader) as never;
            if (op.reader !== 'none' && op.scopes.length > 0) builder = builder.use(reader.requireScopes(...(op.scopes as ['me']))) as never;
            return [`op${i}`, builder.input(z.void()).output(out).query(() => 'x')];
          }),
        );
        const securitySchemes = Object.fromEntries(ownNames.map((name) => [name, OWN[name]]));
        const document = generateOAuth2OpenApiDocument(t.router(procedures), { ...options, securitySchemes });
        ops.forEach((op, i) => {
          const declared = op.protect === true ? ownNames.map((name) => ({ [name]: [] })) : [];
          const reader = op.reader === 'none' ? [] : [{ OAuth2PasswordBearer: [...op.scopes] }];
          const anonymous = op.reader === 'optional' && declared.length === 0 ? [{}] : [];
          // A chain that refuses anonymous requests is passed together with each own scheme.
          const together = op.reader === 'required' && declared.length > 0;
          const expected = together ? declared.map((scheme) => ({ ...reader[0], ...scheme })) : [...reader, ...declared, ...anonymous];
          const { security, responses } = operation(document, `/op${i}`);
          expect(security).toEqual(expected.length === 0 ? undefined : expected);
          // A reader refuses when it is required or requires scopes; `protect: true` adds your
          // schemes' refusals where it brings schemes, or where there is no reader at all.
          const readerRefuses = op.reader === 'required' || (op.reader !== 'none' && op.scopes.length > 0);
          const ownRefuse = op.protect === true && (op.reader === 'none' || ownNames.length > 0);
          const refuses = readerRefuses || ownRefuse;
          expect('401' in responses || '403' in responses).toBe(refuses);
        });
        const used = new Set(ops.filter((op) => op.reader !== 'none').length > 0 ? ['OAuth2PasswordBearer'] : []);
        for (const name of ownNames) used.add(name);
        expect(new Set(Object.keys(document.components?.securitySchemes ?? {}))).toEqual(used);
      }),
      { numRuns: 60 },
    );
  });
});
