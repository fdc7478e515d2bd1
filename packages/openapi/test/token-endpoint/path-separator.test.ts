/**
 * tRPC's `pathSeparator` (`~`: `auth~token` is the procedure `auth.token`): the tRPC faces find a
 * token endpoint behind the router's separator as tRPC does, so its own body limit and its
 * no-store headers hold there too (docs/contract.md#body-limits, docs/contract.md#token-responses).
 */
import { tokenEndpoint, tokenError } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '@trpc-oauth2/test-kit';
import { TRPC_FACES, serveFaces, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req: unknown }>().create({ pathSeparator: '~' });
const router = t.router({
  auth: t.router({
    token: tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), maxBodySize: 2_000 })
      .grant('password', ({ form }) => {
        if (form.password !== 'wonderland') throw tokenError('invalid_grant', 'Incorrect username or password');
        return { access_token: `at-${form.username}`, token_type: 'Bearer' };
      })
      .build(),
  }),
});

let faces: Record<(typeof TRPC_FACES)[number], RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, TRPC_FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

describe.each(TRPC_FACES)('a token endpoint behind pathSeparator ~ on the %s face', (face) => {
  const paths = ['/trpc/auth~token', '/trpc/auth.token', '/trpc/auth%7Etoken'];
  const large = [
    ['application/json', JSON.stringify({ grant_type: 'password', username: 'alice', password: 'x'.repeat(5_000) })],
    ['application/x-www-form-urlencoded', `grant_type=password&username=alice&password=${'x'.repeat(5_000)}`],
  ] as const;

  it.each(paths)("refuses a body over the endpoint's own limit at %s with 413", async (path) => {
    for (const [type, body] of large) {
      const answer = await rawRequest(faces[face].origin, { method: 'POST', path, headers: [['content-type', type]], body });
      expect(answer.status, `${type}: ${answer.body.slice(0, 200)}`).toBe(413);
      expect(answer.headers['cache-control'], type).toEqual(['no-store']);
    }
  });

  it.each(paths)('answers an unsupported body type at %s with no-store', async (path) => {
    const answer = await rawRequest(faces[face].origin, { method: 'POST', path, headers: [['content-type', 'text/plain']], body: 'x' });
    expect(answer.status).toBe(415);
    expect(answer.headers['cache-control']).toEqual(['no-store']);
    expect(answer.headers.pragma).toEqual(['no-cache']);
  });

  it('grants a token at its separator path', async () => {
    const body = 'grant_type=password&username=alice&password=wonderland';
    const answer = await rawRequest(faces[face].origin, { method: 'POST', path: '/trpc/auth~token', headers: [['content-type', 'application/x-www-form-urlencoded']], body });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).result.data).toMatchObject({ access_token: 'at-alice' });
  });
});
