import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { apiDocument } from '../../src/api/openapi.js';
import { conformanceDocument } from '../../src/conformance/openapi.js';

const api = apiDocument();
const conformance = conformanceDocument();
const security = (document: typeof api, path: string, method: 'get' | 'post') => document.paths?.[path]?.[method]?.security;

describe('the OpenAPI documents', () => {
  it.each([
    ['demo API', api],
    ['conformance', conformance],
  ])('the %s document passes an OpenAPI 3.1 validator', async (_name, document) => {
    const result = await new Validator().validate(structuredClone(document) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  const dpopDescription = (scheme: string) =>
    `DPoP-bound access tokens (RFC 9449) of the ${scheme} scheme: send \`Authorization: DPoP <token>\` and a \`DPoP\` proof header signed with ES256, EdDSA, Ed25519, PS256, RS256.`;

  it('declares both ways in Swagger UI authorizes with: the password flow and the authorization server', () => {
    const scopes = { me: 'Read your profile', items: 'Read your items' };
    expect(api.components?.securitySchemes).toEqual({
      DemoPassword: {
        type: 'oauth2',
        description: 'Log in as alice / wonderland (scopes me, items) or bob / builder (scope me).',
        flows: { password: { tokenUrl: '/api/token', refreshUrl: '/api/token', scopes } },
      },
      DemoAuthorizationCode: {
        type: 'oauth2',
        description: 'Log in at the authorization server (client swagger-ui, PKCE) as alice / wonderland (scopes me, items) or bob / builder (scope me).',
        flows: { authorizationCode: { authorizationUrl: '/oidc/auth', tokenUrl: '/oidc/token', refreshUrl: '/oidc/token', scopes } },
      },
      // The same tokens bound to a key (RFC 9449), sent with the DPoP scheme and a proof.
      DemoPasswordDPoP: { type: 'http', scheme: 'DPoP', description: dpopDescription('DemoPassword') },
      DemoAuthorizationCodeDPoP: { type: 'http', scheme: 'DPoP', description: dpopDescription('DemoAuthorizationCode') },
    });
    expect(api.servers).toEqual([{ url: '/api' }]);
  });

  it.each<[string, 'get' | 'post', unknown]>([
    ['/users/me', 'get', [{ DemoPassword: ['me'] }, { DemoPasswordDPoP: ['me'] }, { DemoAuthorizationCode: ['me'] }, { DemoAuthorizationCodeDPoP: ['me'] }]],
    [
      '/users/me/items',
      'get',
      [{ DemoPassword: ['me', 'items'] }, { DemoPasswordDPoP: ['me', 'items'] }, { DemoAuthorizationCode: ['me', 'items'] }, { DemoAuthorizationCodeDPoP: ['me', 'items'] }],
    ],
    ['/token', 'post', undefined],
    ['/revoke', 'post', undefined],
  ])('lists the scopes the chain of %s accumulated, under either way in', (path, method, expected) => {
    expect(security(api, path, method)).toEqual(expected);
  });

  // The API asks for nonces (each server's checker holds them): the document must say so, as the
  // API answers a proof without one (test/api/dpop.test.ts) with use_dpop_nonce and DPoP-Nonce.
  it.each(['/users/me', '/users/me/items'])('documents the use_dpop_nonce 401 of %s and its DPoP-Nonce header', (path) => {
    const unauthorized = api.paths?.[path]?.get?.responses?.['401'] as { headers: Record<string, { required: boolean; schema: { type?: string; examples?: string[] } }> };
    expect(unauthorized.headers['WWW-Authenticate']!.schema.examples).toContain(
      'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", algs="ES256 EdDSA Ed25519 PS256 RS256"',
    );
    expect(unauthorized.headers['DPoP-Nonce']).toMatchObject({ required: false, schema: { type: 'string' } });
  });

  it('documents the token endpoint as a form with RFC 6749 responses', () => {
    const operation = api.paths?.['/token']?.post;
    const content = (operation?.requestBody as { content: Record<string, { schema: any }> }).content;
    expect(Object.keys(content)[0]).toBe('application/x-www-form-urlencoded');
    const form = content['application/x-www-form-urlencoded']!.schema;
    expect(form.properties.grant_type.enum).toEqual(['password', 'refresh_token']);
    expect(form.properties.password.format).toBe('password');
    expect(form.properties.refresh_token.format).toBe('password');
    expect(form.properties.client_secret.format).toBe('password');
    // A request without grant_type is a password grant here (defaultGrantType), so nothing is required of every grant.
    expect(form.required).toBeUndefined();
    expect(Object.keys(operation?.responses ?? {})).toEqual(['200', '400', '401', '413', '415', '429', '500', '503']);
    expect((operation?.responses?.['401'] as any).headers['WWW-Authenticate']).toMatchObject({ required: false, schema: { const: 'Basic' } });
    const throttled = operation?.responses?.['429'] as any;
    expect(throttled.headers['Retry-After'].schema).toEqual({ type: 'integer', minimum: 1 });
    expect(throttled.content['application/json'].schema.properties.error.enum).toEqual(['slow_down']);
  });

  // The demo's faces add Retry-After to every 503 (its database down): the document says so. The
  // users routes list one as verified chains (test/server/database-outage.test.ts sees them answer it).
  it("documents every 503 it lists as its database's, with Retry-After", () => {
    const unavailable = Object.entries(api.paths ?? {}).flatMap(([path, operations]) =>
      Object.entries(operations as Record<string, any>).filter(([, operation]) => operation?.responses?.['503'] !== undefined).map(([method, operation]) => [`${method} ${path}`, operation.responses['503']]),
    );
    expect(unavailable.map(([name]) => name)).toEqual(['post /token', 'post /revoke', 'get /users/me', 'get /users/me/items']);
    for (const [name, response] of unavailable) {
      expect(response.headers['Retry-After'], name).toEqual({ description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } });
      expect(response.description, name).toMatch(/^The database cannot be reached/);
    }
  });

  it('keeps the conformance routes apart, one scheme per reader configuration', () => {
    expect(Object.keys(api.paths ?? {})).toEqual(['/token', '/revoke', '/users/me', '/users/me/items']);
    expect(Object.keys(conformance.components?.securitySchemes ?? {}).sort()).toEqual(
      ['ClientCreds', 'CodeOptional', 'NamedPassword', 'OAuth2', 'OAuth2AuthorizationCodeBearer', 'OAuth2PasswordBearer'],
    );
    expect(conformance.components?.securitySchemes?.ClientCreds).toEqual({
      type: 'oauth2',
      flows: {
        clientCredentials: { tokenUrl: 'cc-token', scopes: { svc: 'Service' } },
        implicit: { authorizationUrl: 'implicit-auth', scopes: {} },
      },
    });
  });

  it.each<[string, 'get' | 'post', unknown]>([
    ['/conformance/base', 'get', [{ OAuth2: [] }]],
    ['/conformance/base-optional', 'get', [{ OAuth2: [] }, {}]],
    ['/conformance/base-flows', 'get', [{ ClientCreds: ['svc'] }]],
    ['/conformance/password', 'get', [{ OAuth2PasswordBearer: [] }]],
    ['/conformance/password-optional', 'get', [{ OAuth2PasswordBearer: [] }, {}]],
    ['/conformance/password-named', 'get', [{ NamedPassword: [] }]],
    ['/conformance/code', 'get', [{ OAuth2AuthorizationCodeBearer: [] }]],
    ['/conformance/code-optional', 'get', [{ CodeOptional: [] }, {}]],
    ['/conformance/form', 'post', undefined],
    ['/conformance/form-strict', 'post', undefined],
    ['/conformance/scoped-token', 'get', [{ OAuth2PasswordBearer: ['items'] }]],
    ['/conformance/scoped-token-nested', 'get', [{ OAuth2PasswordBearer: ['me', 'items'] }]],
  ])('conformance %s %s security', (path, method, expected) => {
    expect(security(conformance, path, method)).toEqual(expected);
  });
});
