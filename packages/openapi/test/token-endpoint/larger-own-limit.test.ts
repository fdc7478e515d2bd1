/**
 * docs/contract.md#body-limits: "A token or revocation endpoint with a `maxBodySize` of its own is
 * limited to it on every face", a limit larger than the handler's included: a body between the
 * two is read on the tRPC faces as it is on the REST faces, and one over the endpoint's own limit
 * is a 413 on all four. A tRPC batch is held to the smallest limit of the calls it names, an
 * ordinary call's being the handler's: a token call never lifts the handler's limit off the body
 * of the calls beside it.
 */
import { revocationEndpoint, tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, TRPC_FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const HANDLER_LIMIT = 10_000;
const OWN_LIMIT = 20_000;

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const revoked: string[] = [];
const router = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: null }), maxBodySize: OWN_LIMIT })
    .grant('password', ({ form }) => ({ access_token: `at-${form.username.length}`, token_type: 'Bearer' }))
    .build(),
  revoke: revocationEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/revoke' } }), {
    authenticateClient: () => ({ id: null }),
    tokenTypes: ['refresh_token'],
    maxBodySize: OWN_LIMIT,
    revoke: ({ form }) => void revoked.push(form.token),
  }),
  // An ordinary procedure: the handler's limit is its own.
  echo: t.procedure.input((value) => value as { text: string }).mutation(({ input }) => input.text.length),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES, { maxBodySize: HANDLER_LIMIT });
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

type BodyType = 'application/json' | 'application/x-www-form-urlencoded' | 'multipart/form-data';
const BODY_TYPES: readonly BodyType[] = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];

/** `fields` as a body of `type`, with its `Content-Type` (multipart's is fetch's own, boundary and all). */
function encoded(type: BodyType, fields: Record<string, string>): { body: BodyInit; headers: Record<string, string> } {
  if (type === 'application/json') return { body: JSON.stringify(fields), headers: { 'content-type': type } };
  if (type === 'application/x-www-form-urlencoded') return { body: new URLSearchParams(fields).toString(), headers: { 'content-type': type } };
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return { body: form, headers: {} };
}

async function post(face: Face, procedure: 'token' | 'revoke', type: BodyType, fields: Record<string, string>) {
  const url = `${faces[face].origin}${isRest(face) ? '/api' : '/trpc'}/${procedure}`;
  const response = await fetch(url, { method: 'POST', ...encoded(type, fields) });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) };
}

/** A password grant request whose username makes it about `size` bytes long. */
const grantOf = (size: number) => ({ grant_type: 'password', username: 'u'.repeat(size), password: 'wonderland' });

describe.each(FACES)('a token endpoint whose own limit is larger than the handler’s, on %s', (face) => {
  it.each(BODY_TYPES)('reads a %s body between the handler’s limit and its own', async (type) => {
    const answer = await post(face, 'token', type, grantOf(15_000));
    expect(answer.status, answer.text.slice(0, 200)).toBe(200);
    expect(isRest(face) ? answer.body : answer.body.result.data).toEqual({ access_token: 'at-15000', token_type: 'Bearer' });
  });

  it.each(BODY_TYPES)('refuses a %s body over its own limit with 413', async (type) => {
    const answer = await post(face, 'token', type, grantOf(25_000));
    expect(answer.status).toBe(413);
    expect(answer.text).toContain(`Request body larger than ${OWN_LIMIT} bytes`);
  });

  it('the revocation endpoint reads a body between the handler’s limit and its own', async () => {
    const token = 't'.repeat(15_000);
    const answer = await post(face, 'revoke', 'application/x-www-form-urlencoded', { token });
    expect(answer.status, answer.text.slice(0, 200)).toBe(200);
    expect(revoked.at(-1)).toBe(token);
  });
});

describe.each(TRPC_FACES)('a batch of a token call and an ordinary call, on %s', (face) => {
  const batch = (size: number) =>
    fetch(`${faces[face].origin}/trpc/token,echo?batch=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ 0: grantOf(size), 1: { text: 'x' } }),
    });

  it('is held to the handler’s limit, the ordinary call’s: 413 between the two limits', async () => {
    const response = await batch(15_000);
    expect(response.status).toBe(413);
    expect(await response.text()).toContain(`Request body larger than ${HANDLER_LIMIT} bytes`);
  });

  it('is answered within it', async () => {
    const response = await batch(5_000);
    expect(response.status).toBe(200);
    const [token, echo] = (await response.json()) as { result: { data: unknown } }[];
    expect(token?.result.data).toEqual({ access_token: 'at-5000', token_type: 'Bearer' });
    expect(echo?.result.data).toBe(1);
  });

  it('an ordinary call alone keeps the handler’s limit', async () => {
    const response = await fetch(`${faces[face].origin}/trpc/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(15_000) }),
    });
    expect(response.status).toBe(413);
  });
});
