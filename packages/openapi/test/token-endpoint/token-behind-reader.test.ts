/**
 * A token endpoint built on a procedure behind a reader (`tokenEndpoint(t.procedure.use(…))`):
 * the document lists the reader's requirement, and so must list the refusals it answers
 * (docs/contract.md#openapi, "401 and 403 responses"), as the REST handler sends them: RFC 6749
 * §5.2 bodies with the reader's `WWW-Authenticate` challenge.
 */
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { Validator } from '@seriousme/openapi-schema-validator';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { serveFace, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
const auth = oauth2PasswordBearer({ tokenUrl: '/api/token', scopes: { admin: 'Administer' }, verify: async (token) => ({ scopes: token.split(',') }) });
const router = t.router({
  issue: tokenEndpoint(t.procedure.use(auth.withScopes('admin')).meta({ openapi: { method: 'POST', path: '/issue' } }), { authenticateClient: () => ({ id: null }) })
    .grant('client_credentials', () => ({ access_token: 'issued', token_type: 'Bearer' }))
    .build(),
});

let server: RunningFace;
beforeAll(async () => {
  server = await serveFace(router, 'rest-standalone');
});
afterAll(async () => {
  await server.close();
});

it("documents the reader's refusals as the endpoint answers them", async () => {
  const document = generateOAuth2OpenApiDocument(router, { title: 'issue', version: '1', baseUrl: `${server.origin}/api` }) as any;
  const operation = document.paths['/issue'].post;
  expect(operation.security).toEqual([{ OAuth2PasswordBearer: ['admin'] }]);
  for (const authorization of [undefined, 'Bearer other', 'Bearer admin']) {
    const response = await fetch(`${server.origin}/api/issue`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization === undefined ? {} : { authorization }) },
      body: 'grant_type=client_credentials',
    });
    const body = (await response.json()) as { error?: string };
    if (response.status === 200) continue;
    const documented = operation.responses[String(response.status)];
    expect(documented, `${response.status} is documented`).toBeDefined();
    const challenge = response.headers.get('www-authenticate');
    const header = documented.headers?.['WWW-Authenticate']?.schema;
    expect([...(header?.examples ?? []), header?.const], `${response.status} ${challenge}`).toContain(challenge);
    expect(documented.content['application/json'].schema.properties.error.enum).toContain(body.error);
  }
  expect(await new Validator().validate(JSON.parse(JSON.stringify(document)))).toEqual({ valid: true });
});
