/**
 * A token endpoint with a `maxBodySize` of its own has its JSON read by the body policy on the tRPC
 * faces whatever that limit is, the handler's own included: JSON that is not UTF-8 is 400
 * `PARSE_ERROR` there, never read as U+FFFD (docs/contract.md#body-limits).
 */
import { tokenEndpoint, tokenError } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '@trpc-oauth2/test-kit';
import { DEFAULT_MAX_BODY_SIZE } from '../../src/index.js';
import { TRPC_FACES, serveFaces, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req: unknown }>().create();
const grant = (limit: number) =>
  tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), maxBodySize: limit })
    .grant('password', ({ form }) => {
      if (form.password !== 'wonderland') throw tokenError('invalid_grant', 'Incorrect username or password');
      return { access_token: `at-${form.username}`, token_type: 'Bearer' };
    })
    .build();
const router = t.router({ same: grant(DEFAULT_MAX_BODY_SIZE), larger: grant(DEFAULT_MAX_BODY_SIZE * 2) });

let faces: Record<(typeof TRPC_FACES)[number], RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, TRPC_FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

const notUtf8 = Buffer.concat([Buffer.from('{"grant_type":"password","password":"wonderland","username":"al'), Buffer.from([0xff]), Buffer.from('ice"}')]);

describe.each(TRPC_FACES)('a token endpoint whose own limit is the handler’s, or larger, on the %s face', (face) => {
  it.each(['same', 'larger'])('%s: refuses JSON that is not UTF-8 with 400', async (path) => {
    const answer = await rawRequest(faces[face].origin, { method: 'POST', path: `/trpc/${path}`, headers: [['content-type', 'application/json']], body: notUtf8 });
    expect(answer.status, answer.body.slice(0, 300)).toBe(400);
    expect(answer.body).toContain('Failed to parse request body');
    expect(answer.headers['cache-control']).toEqual(['no-store']);
  });

  it.each(['same', 'larger'])('%s: grants a token for well-formed JSON', async (path) => {
    const body = JSON.stringify({ grant_type: 'password', username: 'alice', password: 'wonderland' });
    const answer = await rawRequest(faces[face].origin, { method: 'POST', path: `/trpc/${path}`, headers: [['content-type', 'application/json']], body });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).result.data).toMatchObject({ access_token: 'at-alice' });
  });
});
