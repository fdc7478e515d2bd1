import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { documentRouter } from '../support/document-router.js';

const options = { title: 'Document test', version: '1.0.0', baseUrl: 'http://127.0.0.1:3000/api/' };
const document = generateOAuth2OpenApiDocument(documentRouter, options);
const operation = (path: string, method: string) => (document.paths as Record<string, Record<string, any>>)[path]![method]!;

describe('the generated document', () => {
  it('passes an OpenAPI 3.1 validator', async () => {
    const result = await new Validator().validate(JSON.parse(JSON.stringify(document)));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('matches the snapshot', async () => {
    await expect(JSON.stringify(document, null, 2) + '\n').toMatchFileSnapshot('./__snapshots__/document.json');
  });

  it('declares every reader of the documented operations as an oauth2 scheme, shaped as docs/contract.md#openapi says', () => {
    expect(document.components?.securitySchemes).toEqual({
      OAuth2PasswordBearer: {
        type: 'oauth2',
        description: 'Password flow',
        flows: { password: { tokenUrl: 'token', refreshUrl: 'refresh', scopes: { me: 'Read your profile', items: 'Read your items', admin: 'Administer' } } },
      },
      OAuth2AuthorizationCodeBearer: {
        type: 'oauth2',
        flows: { authorizationCode: { authorizationUrl: 'authorize', tokenUrl: 'token', scopes: { read: 'Read' } } },
      },
      ServiceAuth: {
        type: 'oauth2',
        description: 'Service to service',
        flows: { clientCredentials: { tokenUrl: 'token', scopes: { svc: 'Call as a service' } } },
      },
    });
  });

  it.each([
    { path: '/profile', method: 'get', security: [{ OAuth2PasswordBearer: [] }] },
    { path: '/me', method: 'get', security: [{ OAuth2PasswordBearer: ['me'] }] },
    { path: '/items', method: 'get', security: [{ OAuth2PasswordBearer: ['me', 'items'] }] },
    { path: '/admin', method: 'delete', security: [{ OAuth2PasswordBearer: ['me', 'items', 'admin'] }] },
    { path: '/one-step', method: 'get', security: [{ OAuth2PasswordBearer: ['me', 'items'] }] },
    { path: '/feed', method: 'get', security: [{ OAuth2PasswordBearer: [] }, {}] },
    { path: '/feed/personal', method: 'get', security: [{ OAuth2PasswordBearer: ['me'] }, {}] },
    { path: '/code', method: 'get', security: [{ OAuth2AuthorizationCodeBearer: ['read'] }] },
    { path: '/both', method: 'get', security: [{ OAuth2PasswordBearer: ['items'] }, { OAuth2AuthorizationCodeBearer: ['read'] }] },
    { path: '/service', method: 'get', security: [{ ServiceAuth: ['svc'] }] },
    { path: '/status', method: 'get', security: undefined },
    { path: '/token', method: 'post', security: undefined },
    { path: '/token/strict', method: 'post', security: undefined },
  ])('$method $path lists security $security', ({ path, method, security }) => {
    expect(operation(path, method).security).toEqual(security);
  });

  const challenge = (examples: string[], required = true) => ({
    description: 'The authentication challenge (RFC 6750 §3).',
    required,
    schema: { type: 'string', examples },
  });
  const scopeChallenge = (scopes: string) => `Bearer error="insufficient_scope", scope="${scopes}"`;

  it.each([
    { path: '/profile', method: 'get', responses: { 401: ['Not authenticated', challenge(['Bearer'])] } },
    {
      path: '/items',
      method: 'get',
      responses: { 401: ['Not authenticated', challenge(['Bearer'])], 403: ['Not enough permissions', challenge([scopeChallenge('me items')])] },
    },
    {
      path: '/both',
      method: 'get',
      responses: { 401: ['Not authenticated', challenge(['Bearer'])], 403: ['Not enough permissions', challenge([scopeChallenge('items read')])] },
    },
    { path: '/feed', method: 'get', responses: {} },
    { path: '/feed/personal', method: 'get', responses: { 403: ['Not enough permissions', challenge([scopeChallenge('me')])] } },
    // The base reader refuses with 403 and no challenge; its scope check sends one.
    { path: '/service', method: 'get', responses: { 403: ['Not authenticated; Not enough permissions', challenge([scopeChallenge('svc')], false)] } },
    { path: '/status', method: 'get', responses: {} },
    { path: '/token', method: 'post', responses: {} },
  ] as const)('$method $path documents its refusals: $responses', ({ path, method, responses }) => {
    const documented = operation(path, method).responses;
    for (const status of ['401', '403'] as const) {
      const expected = (responses as Record<string, readonly [string, unknown]>)[status];
      if (expected === undefined) {
        expect(documented[status]).toBeUndefined();
        continue;
      }
      expect(documented[status].description).toBe(expected[0]);
      expect(documented[status].headers?.['WWW-Authenticate']).toEqual(expected[1]);
      expect(documented[status].content['application/json'].schema).toBeDefined();
    }
  });

  it.each([
    { path: '/token', required: ['username', 'password'] },
    { path: '/token/strict', required: ['grant_type', 'username', 'password'] },
  ])('documents the body of $path as the urlencoded password form', ({ path, required }) => {
    const body = operation(path, 'post').requestBody;
    expect(Object.keys(body.content)).toEqual(['application/x-www-form-urlencoded']);
    const schema = body.content['application/x-www-form-urlencoded'].schema;
    expect(schema.required).toEqual(required);
    expect(schema.properties).toEqual({
      grant_type: { type: 'string', pattern: '^password$' },
      username: { type: 'string' },
      password: { type: 'string', format: 'password' },
      scope: { type: 'string' },
      client_id: { type: 'string' },
      client_secret: { type: 'string', format: 'password' },
    });
  });

  it('leaves out procedures that are not on the REST face, and their readers', () => {
    expect(document.paths?.['/hidden']).toBeUndefined();
    expect(Object.keys(document.components?.securitySchemes ?? {})).not.toContain('Internal');
  });
});
