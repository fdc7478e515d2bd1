import { Validator } from '@seriousme/openapi-schema-validator';
import { oauth2, oauth2PasswordBearer, passwordRequestForm } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SecuritySchemeConflictError, generateOAuth2OpenApiDocument } from '../../src/index.js';

const t = initTRPC.meta<OpenApiMeta>().create();
const options = { title: 'Options test', version: '1.0.0', baseUrl: 'http://127.0.0.1/api/' };
const get = (path: `/${string}`) => ({ openapi: { method: 'GET', path } }) as const;
const route = <$Procedure extends ReturnType<typeof t.procedure.use>>(procedure: $Procedure, path: `/${string}`) =>
  procedure.meta(get(path)).input(z.void()).output(z.string()).query(() => 'ok');

describe('scheme names', () => {
  const a = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me' } });
  const b = oauth2PasswordBearer({ tokenUrl: 'other-token', scopes: { me: 'Me' } });

  it('two different readers with one scheme name throw SecuritySchemeConflictError', () => {
    const router = t.router({ a: route(t.procedure.use(a), '/a'), b: route(t.procedure.use(b), '/b') });
    const generate = () => generateOAuth2OpenApiDocument(router, options);
    expect(generate).toThrow(SecuritySchemeConflictError);
    expect(generate).toThrow(
      'Two different security schemes are named "OAuth2PasswordBearer": ' +
        '{"type":"oauth2","flows":{"password":{"tokenUrl":"token","scopes":{"me":"Me"}}}} and ' +
        '{"type":"oauth2","flows":{"password":{"tokenUrl":"other-token","scopes":{"me":"Me"}}}}. ' +
        'Give one of the readers its own schemeName.',
    );
    try {
      generate();
    } catch (error) {
      expect(error).toMatchObject({ code: 'ERR_SECURITY_SCHEME_CONFLICT', schemeName: 'OAuth2PasswordBearer' });
    }
  });

  it('a conflict inside one chain is caught too', () => {
    const router = t.router({ ab: route(t.procedure.use(a).use(b), '/ab') });
    expect(() => generateOAuth2OpenApiDocument(router, options)).toThrow(SecuritySchemeConflictError);
  });

  it('a reader that conflicts with a scheme passed in `securitySchemes` throws', () => {
    const router = t.router({ a: route(t.procedure.use(a), '/a') });
    const securitySchemes = { OAuth2PasswordBearer: { type: 'http', scheme: 'bearer' } } as const;
    expect(() => generateOAuth2OpenApiDocument(router, { ...options, securitySchemes })).toThrow(SecuritySchemeConflictError);
  });

  it('readers with equal schemes share a name (a reader and its autoError: false twin)', () => {
    const twin = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me' }, autoError: false });
    const router = t.router({ a: route(t.procedure.use(a), '/a'), twin: route(t.procedure.use(twin), '/twin') });
    expect(Object.keys(generateOAuth2OpenApiDocument(router, options).components?.securitySchemes ?? {})).toEqual(['OAuth2PasswordBearer']);
  });

  it('readers with their own scheme names are both declared', () => {
    const other = oauth2PasswordBearer({ tokenUrl: 'other-token', schemeName: 'Other' });
    const router = t.router({ a: route(t.procedure.use(a), '/a'), other: route(t.procedure.use(other), '/other') });
    expect(Object.keys(generateOAuth2OpenApiDocument(router, options).components?.securitySchemes ?? {})).toEqual(['OAuth2PasswordBearer', 'Other']);
  });
});

describe("trpc-to-openapi's options and meta", () => {
  const auth = oauth2PasswordBearer({ tokenUrl: 'token' });
  const router = t.router({
    public: route(t.procedure, '/public'),
    secret: route(t.procedure.use(auth), '/secret'),
    internal: t.procedure.use(oauth2({ schemeName: 'Internal' })).meta({ ...get('/internal'), internal: true }).input(z.void()).output(z.string()).query(() => 'ok'),
    teapot: t.procedure.meta({ openapi: { ...get('/teapot').openapi, errorResponses: { 401: 'Who are you?', 418: "I'm a teapot" } } }).input(z.void()).output(z.string()).query(() => 'ok'),
    json: t.procedure
      .meta({ openapi: { method: 'POST', path: '/json-token', contentTypes: ['application/json'] } })
      .input(passwordRequestForm)
      .output(z.string())
      .mutation(() => 'ok'),
  });
  const generate = (extra: object = {}) => generateOAuth2OpenApiDocument(router, { ...options, ...extra });
  const paths = (document: ReturnType<typeof generate>) => document.paths as Record<string, Record<string, any>>;

  it('keeps the schemes passed in `securitySchemes` beside the readers\'', () => {
    const apiKey = { type: 'apiKey', name: 'x-api-key', in: 'header' } as const;
    expect(generate({ securitySchemes: { ApiKey: apiKey } }).components?.securitySchemes).toEqual({
      ApiKey: apiKey,
      OAuth2PasswordBearer: auth.securityScheme,
      Internal: { type: 'oauth2', flows: {} },
    });
  });

  it('applies `filter` to the operations and to the schemes', () => {
    const document = generate({ filter: ({ metadata }: { metadata: { internal?: boolean } }) => metadata.internal !== true });
    expect(paths(document)['/internal']).toBeUndefined();
    expect(Object.keys(document.components?.securitySchemes ?? {})).toEqual(['OAuth2PasswordBearer']);
  });

  it('gives an operation without a reader no security and none of the 401/403 trpc-to-openapi adds', () => {
    const operation = paths(generate())['/public']!.get;
    expect(operation.security).toBeUndefined();
    expect(Object.keys(operation.responses)).toEqual(['200', '500']);
  });

  it('keeps the error responses a meta lists itself', () => {
    const operation = paths(generate())['/teapot']!.get;
    // (Their descriptions are trpc-to-openapi's: it keeps the first text it saw for each error code.)
    expect(Object.keys(operation.responses)).toEqual(['200', '401', '418']);
  });

  it('keeps the content types a meta lists itself, even for a token endpoint', () => {
    expect(Object.keys(paths(generate())['/json-token']!.post.requestBody.content)).toEqual(['application/json']);
  });

  it('produces a valid document with the options applied', async () => {
    const result = await new Validator().validate(JSON.parse(JSON.stringify(generate())));
    expect(result).toEqual({ valid: true });
  });
});

describe('the validator used by these tests', () => {
  it('refuses a broken document, so its approval means something', async () => {
    const broken = JSON.parse(JSON.stringify(generateOAuth2OpenApiDocument(t.router({ secret: route(t.procedure.use(oauth2PasswordBearer({ tokenUrl: 'token' })), '/secret') }), options)));
    delete broken.components.securitySchemes.OAuth2PasswordBearer.flows.password.tokenUrl;
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });
});

// OpenAPI names each operation once (§4.8.10.1); trpc-to-openapi's default id is the procedure's
// path with `.` as `-`, which two procedures can share.
describe('operation ids', () => {
  const nested = t.router({ a: t.router({ b: route(t.procedure, '/nested') }), 'a-b': route(t.procedure, '/flat') });

  it('two operations with one operationId throw, naming both and the fix', () => {
    expect(() => generateOAuth2OpenApiDocument(nested, options)).toThrow(
      'Two operations have the operationId "a-b" (GET /nested and GET /flat): give one its own with meta.openapi.operationId',
    );
  });

  it('an operationId of its own settles it, and every id is then once in the document', () => {
    const settled = t.router({
      a: t.router({ b: route(t.procedure, '/nested') }),
      'a-b': t.procedure.meta({ openapi: { method: 'GET', path: '/flat', operationId: 'flat' } }).input(z.void()).output(z.string()).query(() => 'ok'),
    });
    const document = generateOAuth2OpenApiDocument(settled, options);
    const ids = Object.values(document.paths ?? {}).flatMap((item) => Object.values(item ?? {}).map((operation) => (operation as { operationId?: string }).operationId));
    expect(ids.sort()).toEqual(['a-b', 'flat']);
  });
});
