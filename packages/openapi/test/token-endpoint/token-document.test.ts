import { Validator } from '@seriousme/openapi-schema-validator';
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { REST_FACES, serveFaces, type RunningFace } from '../support/faces.js';
import { tokenRouter } from './token-router.js';

// docs/contract.md#openapi: the token endpoint documents every grant it serves, and every
// documented body is what a real response carries.

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Read you' }, manualScopeCheck: true });
const router = t.mergeRouters(
  tokenRouter,
  t.router({
    me: t.procedure
      .meta({ openapi: { method: 'GET', path: '/me' } })
      .use(auth)
      .use(auth.requireScopes('me'))
      .input(z.void())
      .output(z.object({ id: z.number().int(), name: z.string() }))
      .query(() => ({ id: 1, name: 'alice' })),
  }),
);
const document = generateOAuth2OpenApiDocument(router, { title: 'Tokens', version: '1.0.0', baseUrl: 'http://127.0.0.1/api' });
const token = (document.paths as any)['/token'].post;

let faces: Record<(typeof REST_FACES)[number], RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, REST_FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(faces).map((running) => running.close()));
});

describe('the OpenAPI document of a token endpoint with four grants', () => {
  it('passes the OpenAPI 3.1 validator, and matches its snapshot', async () => {
    expect(await new Validator().validate(structuredClone(document) as never)).toEqual({ valid: true });
    await expect(JSON.stringify(document, null, 2) + '\n').toMatchFileSnapshot('./__snapshots__/token-document.json');
  });

  it('documents a urlencoded form with grant_type an enum of the registered grants and every grant’s fields', () => {
    const schema = token.requestBody.content['application/x-www-form-urlencoded'].schema;
    expect(Object.keys(token.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(schema.properties.grant_type.enum).toEqual(['password', 'refresh_token', 'client_credentials', 'authorization_code']);
    expect(schema.required).toEqual(['grant_type']);
    expect(Object.keys(schema.properties).sort()).toEqual(
      ['client_id', 'client_secret', 'code', 'code_verifier', 'grant_type', 'password', 'redirect_uri', 'refresh_token', 'scope', 'username'],
    );
    for (const secret of ['password', 'client_secret', 'refresh_token', 'code', 'code_verifier']) expect(schema.properties[secret].format, secret).toBe('password');
    expect(schema.properties.redirect_uri.examples).toEqual(['https://client.example/cb']);
  });

  // trpc-to-openapi takes `errorResponses` as a record or as a list of statuses: an application's
  // own response (a throttle's 429) stays in the document either way.
  it.each<[string, number[] | Record<number, string>]>([
    ['a list of statuses', [429]],
    ['a record of descriptions', { 429: 'Slow down' }],
  ])('keeps the statuses the meta lists in errorResponses, given as %s', (_form, errorResponses) => {
    const own = t.router({
      token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token', errorResponses } }), { authenticateClient: () => null })
        .grant('password', () => ({ access_token: 'at', token_type: 'Bearer' }))
        .build(),
    });
    const responses = (generateOAuth2OpenApiDocument(own, { title: 'Own', version: '1.0.0', baseUrl: 'http://127.0.0.1/api' }).paths as any)['/token'].post.responses;
    expect(Object.keys(responses)).toContain('429');
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['200', '400', '401', '413', '415', '500', '503']));
  });

  it('has no zod safe-integer bounds for an example to show', () => {
    expect(JSON.stringify(document)).not.toContain('9007199254740991');
    expect((document.components?.schemas as any).TokenResponse.properties.expires_in).toMatchObject({ type: 'integer', minimum: 0, examples: [900] });
  });

  it('documents the revocation endpoint with RFC 7009’s form', () => {
    const revoke = (document.paths as any)['/revoke'].post;
    const schema = revoke.requestBody.content['application/x-www-form-urlencoded'].schema;
    expect(schema.required).toEqual(['token']);
    expect(schema.properties.token_type_hint.enum).toEqual(['refresh_token', 'access_token']);
    expect(revoke.responses['400'].content['application/json'].schema.properties.error.enum).toEqual(['invalid_request', 'unsupported_token_type']);
  });

  it.each(['/token', '/revoke'])('documents the 503 %s answers for a SERVICE_UNAVAILABLE fault: server_error, no Retry-After', async (path) => {
    const operation = (document.paths as any)[path].post;
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '401', '413', '415', '500', '503']);
    const unavailable = operation.responses['503'];
    expect(unavailable.content['application/json'].schema.properties.error.enum).toEqual(['server_error']);
    expect(unavailable.content['application/json'].schema.required).toEqual(['error', 'error_description']);
    // Only what the endpoint sends: the no-store headers, never a Retry-After the library does not write.
    expect(Object.keys(unavailable.headers)).toEqual(['Cache-Control', 'Pragma']);
    const fields: Record<string, string> = path === '/token' ? { grant_type: 'password', username: 'unavailable', password: 'x' } : { token: 'unavailable' };
    for (const face of REST_FACES) {
      const response = await fetch(`${faces[face].origin}/api${path}`, { method: 'POST', body: new URLSearchParams(fields) });
      expect(response.status, face).toBe(503);
      expect(response.headers.get('retry-after'), face).toBeNull();
      expect(await response.json(), face).toEqual(unavailable.content['application/json'].example);
    }
  });
});

describe('the 415 of a token or revocation endpoint', () => {
  it.each(['/token', '/revoke'])('documents, for %s, the form in a charset other than UTF-8 that it refuses with it', async (path) => {
    const refused = (document.paths as any)[path].post.responses['415'];
    expect(refused.description).toMatch(/charset/);
    expect(refused.description).toMatch(/UTF-8/);
    for (const face of REST_FACES) {
      const response = await fetch(`${faces[face].origin}/api${path}`, {
        method: 'POST',
        body: path === '/token' ? 'grant_type=password&username=a&password=x' : 'token=t',
        headers: { 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' },
      });
      expect(response.status, face).toBe(415);
      expect(await response.json(), face).toEqual({ error: 'invalid_request', error_description: 'Unsupported charset iso-8859-1: send the form in UTF-8' });
    }
  });
});

/** The schema a documented response of `operation` has for `status`, `$ref`s resolved against the document. */
function documentedBody(operation: any, status: number): object {
  const response = operation.responses[String(status)];
  expect(response, `documented ${status}`).toBeDefined();
  return response.content['application/json'].schema;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'doc', components: document.components } as never);
const validate = (schema: object, body: unknown) => {
  // `#/components/…` refs resolve against the document registered as `doc`.
  const resolved = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'));
  const check = ajv.compile(resolved);
  return check(body) ? [] : check.errors;
};

const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;

describe.each(REST_FACES)('every documented body is what %s really sends', (face) => {
  it.each<[string, string, string, RequestInit]>([
    ['token 200', '/token', 'post', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: 'a', password: 'wonderland' }) }],
    ['token 400 invalid_request', '/token', 'post', { method: 'POST', body: new URLSearchParams({ username: 'a' }) }],
    ['token 400 unsupported_grant_type', '/token', 'post', { method: 'POST', body: new URLSearchParams({ grant_type: 'x' }) }],
    ['token 401 invalid_client', '/token', 'post', { method: 'POST', body: new URLSearchParams({ grant_type: 'client_credentials' }), headers: { authorization: basic('app', 'no') } }],
    ['token 413', '/token', 'post', { method: 'POST', body: new URLSearchParams({ username: 'a'.repeat(3_000) }) }],
    ['token 415', '/token', 'post', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } }],
    ['revoke 200', '/revoke', 'post', { method: 'POST', body: new URLSearchParams({ token: 't' }) }],
    ['token 503 (a store that is down)', '/token', 'post', { method: 'POST', body: new URLSearchParams({ grant_type: 'password', username: 'unavailable', password: 'x' }) }],
    ['revoke 400', '/revoke', 'post', { method: 'POST', body: new URLSearchParams({ token: 't', token_type_hint: 'x' }) }],
    ['revoke 503 (a store that is down)', '/revoke', 'post', { method: 'POST', body: new URLSearchParams({ token: 'unavailable' }) }],
    ['me 200', '/me', 'get', { headers: { authorization: 'Bearer t' } }],
    ['me 401 (no token)', '/me', 'get', {}],
  ])('%s', async (_name, path, method, init) => {
    const response = await fetch(`${faces[face].origin}/api${path}`, init);
    const body = await response.json();
    const operation = (document.paths as any)[path][method];
    expect(validate(documentedBody(operation, response.status), body)).toEqual([]);
    for (const [name, header] of Object.entries<any>(operation.responses[String(response.status)].headers ?? {})) {
      if (header.required !== false || response.headers.has(name)) {
        const value = response.headers.get(name);
        expect(value, name).not.toBeNull();
        if (header.schema.const !== undefined) expect(value, name).toBe(header.schema.const);
      }
    }
  });
});
