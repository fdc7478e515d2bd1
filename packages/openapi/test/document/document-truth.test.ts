import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { FACES, REST_FACES, call, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { documentRouter } from '../support/document-router.js';
import { A, AB, ABC, C, CREDENTIALS, bearer, documentLies, optionalA, stepUp } from './chain-model.js';

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
const get = (path: `/${string}`) => ({ openapi: { method: 'GET', path } }) as const;

/**
 * Chains whose document once said something else than their answers: a step-up after an optional
 * reader, a group narrowed by one member's step, scopes required of an optional verified reader,
 * two verified readers in one chain, a nested group (docs/contract.md#openapi).
 */
const arrangementsRouter = t.router({
  stepUpOptional: t.procedure.use(optionalA).use(stepUp()).meta(get('/step-up/optional')).input(z.void()).output(z.string()).query(() => 'ok'),
  stepUp: t.procedure.use(A).use(stepUp()).meta(get('/step-up')).input(z.void()).output(z.string()).query(() => 'ok'),
  groupNarrowed: t.procedure.use(AB).use(A.requireScopes('me')).meta(get('/group/narrowed')).input(z.void()).output(z.string()).query(() => 'ok'),
  optionalScopes: t.procedure
    .use(optionalA)
    .use(optionalA.requireScopes('me'))
    .meta(get('/optional/scopes'))
    .input(z.void())
    .output(z.string())
    .query(() => 'ok'),
  twoReaders: t.procedure
    .use(A)
    .use(C)
    .use(A.requireScopes('items'))
    .use(C.requireScopes('me'))
    .meta(get('/two-readers'))
    .input(z.void())
    .output(z.string())
    .query(() => 'ok'),
  nestedGroup: t.procedure.use(ABC).use(ABC.requireScopes('me')).meta(get('/group/nested')).input(z.void()).output(z.string()).query(() => 'ok'),
});
const ARRANGEMENTS = Object.keys(arrangementsRouter._def.procedures);

let servers: Record<Face, RunningFace>;
let arrangements: Record<Face, RunningFace>;
beforeAll(async () => {
  servers = await serveFaces(documentRouter, FACES);
  arrangements = await serveFaces(arrangementsRouter, FACES);
});
afterAll(async () => {
  await Promise.all([...Object.values(servers), ...Object.values(arrangements)].map((server) => server.close()));
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

describe('every credential is answered as the document says, on every face (verified readers, anyOf, step-up)', () => {
  const document = generateOAuth2OpenApiDocument(arrangementsRouter, { title: 'Arrangements', version: '1.0.0', baseUrl: 'http://127.0.0.1/api' }) as any;
  const cases = FACES.flatMap((face) => ARRANGEMENTS.map((procedure) => ({ face, procedure })));

  it.each(cases)('$face $procedure', async ({ face, procedure }) => {
    const { openapi } = (arrangementsRouter._def.procedures as any)[procedure]._def.meta;
    const operation = document.paths[openapi.path][openapi.method.toLowerCase()];
    const lies: string[] = [];
    for (const credential of CREDENTIALS) {
      const answer = await call(arrangements[face], procedure, credential === null ? {} : { headers: { authorization: bearer(credential) } });
      lies.push(...documentLies(operation, credential, answer).map((lie) => `${credential === null ? 'anonymous' : bearer(credential)}: ${lie}`));
    }
    expect(lies).toEqual([]);
  });
});
