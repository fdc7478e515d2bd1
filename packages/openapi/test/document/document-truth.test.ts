import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { FACES, REST_FACES, call, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { documentRouter } from '../support/document-router.js';

let servers: Record<Face, RunningFace>;
beforeAll(async () => {
  servers = await serveFaces(documentRouter, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const documentFor = (face: Face) =>
  generateOAuth2OpenApiDocument(documentRouter, { title: 'Truth', version: '1.0.0', baseUrl: `${servers[face].origin}/api/` }) as any;

describe('what Swagger UI does with the document, step by step', () => {
  it.each(REST_FACES)('%s: authorizes with the password flow and calls a scoped operation', async (face) => {
    const document = documentFor(face);
    const server: string = document.servers[0].url;
    const requirement = document.paths['/items'].get.security[0];
    const [schemeName, scopes] = Object.entries(requirement)[0] as [string, string[]];
    const flow = document.components.securitySchemes[schemeName].flows.password;

    // Swagger UI resolves tokenUrl against the selected server and posts the form urlencoded.
    const tokenResponse = await fetch(new URL(flow.tokenUrl, server), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'password', username: 'alice', password: 'secret', scope: scopes.join(' ') }),
    });
    expect(tokenResponse.status).toBe(200);
    const grant = (await tokenResponse.json()) as { access_token: string; token_type: string };
    expect(grant).toEqual({ access_token: 'token-of-alice:me,items', token_type: 'bearer' });

    const items = await fetch(`${server.replace(/\/$/, '')}/items`, { headers: { authorization: `Bearer ${grant.access_token}` } });
    expect(items.status).toBe(200);
    expect(await items.json()).toEqual({ token: 'token-of-alice:me,items', scopes: ['me', 'items'] });
  });
});

describe('an anonymous call is answered as the document says, on every face', () => {
  const procedures = ['profile', 'me', 'items', 'admin', 'feed', 'personalFeed', 'code', 'both', 'service', 'status'];
  const cases = FACES.flatMap((face) => procedures.map((procedure) => ({ face, procedure })));

  it.each(cases)('$face $procedure', async ({ face, procedure }) => {
    const document = documentFor(REST_FACES[0]);
    const { openapi } = (documentRouter._def.procedures as any)[procedure]._def.meta;
    const operation = document.paths[openapi.path][openapi.method.toLowerCase()];
    const result = await call(servers[face], procedure);
    if (result.status === 200) {
      // Anonymous success is only allowed where the document lists the empty requirement or none.
      expect(operation.security === undefined || operation.security.some((r: object) => Object.keys(r).length === 0)).toBe(true);
      return;
    }
    const documented = operation.responses[String(result.status)];
    expect(documented, `status ${result.status} is documented`).toBeDefined();
    const header = documented.headers?.['WWW-Authenticate'];
    if (result.challenge === null) expect(header?.required ?? false).toBe(false);
    else expect(header.schema.examples).toContain(result.challenge);
    expect(result.error?.message).toBe('Not authenticated');
  });

  it.each(procedures)('%s answers alike on the four faces', async (procedure) => {
    const results = await Promise.all(FACES.map((face) => call(servers[face], procedure)));
    const seen = results.map(({ status, challenge, error }) => ({ status, challenge, message: error?.message }));
    for (const each of seen) expect(each).toEqual(seen[0]);
  });
});
