/**
 * docs/contract.md#token-responses: a grant's answer that its own schema refuses (RFC 6749 §5.1:
 * `expires_in` whole seconds, 0 to 2^31 − 1; `access_token` and `token_type` text) is a fault of
 * the server, answered on every face as `server_error` without its message ("The request could not
 * be completed"), never as tRPC's own "Output validation failed"; the fault reaches `onError`.
 */
import { oauth2ErrorData, tokenEndpoint, type TokenResponse } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

/** What the handler answers, by the `scope` the request asks for: each typed as a `TokenResponse`. */
const ANSWERS: Record<string, TokenResponse> = {
  fraction: { access_token: 'a', token_type: 'Bearer', expires_in: 899.5 },
  negative: { access_token: 'a', token_type: 'Bearer', expires_in: -1 },
  'past-2-31': { access_token: 'a', token_type: 'Bearer', expires_in: 2 ** 31 },
  nan: { access_token: 'a', token_type: 'Bearer', expires_in: Number.NaN },
  infinite: { access_token: 'a', token_type: 'Bearer', expires_in: Number.POSITIVE_INFINITY },
  // What a handler in plain JavaScript may answer.
  'numeric-token': { access_token: 5, token_type: 'Bearer' } as never,
  zero: { access_token: 'a', token_type: 'Bearer', expires_in: 0 },
  'max-int32': { access_token: 'a', token_type: 'Bearer', expires_in: 2 ** 31 - 1 },
};

const router = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: null }) })
    .grant('client_credentials', ({ form }) => ANSWERS[form.scope]!)
    .build(),
  // `around` may answer in place of the grant: its answer is held to the same schema.
  aroundToken: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/around-token' } }), {
    authenticateClient: () => ({ id: null }),
    around: async (_call, next) => ({ ...(await next()), expires_in: 0.25 }),
  })
    .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer', expires_in: 900 }))
    .build(),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

async function post(face: Face, procedure: 'token' | 'aroundToken', scope: string) {
  const running = faces[face];
  const path = procedure === 'token' ? 'token' : 'around-token';
  const url = isRest(face) ? `${running.origin}/api/${path}` : `${running.origin}/trpc/${procedure}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

describe.each(FACES)('a grant answer its token response schema refuses, on %s', (face) => {
  it.each([
    ['a fraction of a second', 'token', 'fraction', 'expires_in'],
    ['a negative expires_in', 'token', 'negative', 'expires_in'],
    ['an expires_in past 2^31 - 1', 'token', 'past-2-31', 'expires_in'],
    ['an expires_in that is NaN', 'token', 'nan', 'expires_in'],
    ['an infinite expires_in', 'token', 'infinite', 'expires_in'],
    ['an access_token that is not text', 'token', 'numeric-token', 'access_token'],
    ["around's answer with a fraction of a second", 'aroundToken', '', 'expires_in'],
  ] as const)('%s is a 500 server_error whose message is not sent', async (_name, procedure, scope, field) => {
    const running = faces[face];
    const reported = running.errors.length;
    const answer = await post(face, procedure, scope);
    expect(answer.status).toBe(500);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.text).not.toContain('Output validation failed');
    expect(answer.text).not.toContain(field);
    if (isRest(face)) {
      expect(answer.body).toEqual({ error: 'server_error', error_description: 'The request could not be completed' });
    } else {
      expect(answer.body.error).toMatchObject({ message: 'The request could not be completed', data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500, oauth2: null } });
    }
    // The fault itself, naming the field, goes to onError and the logs.
    const error = running.errors.slice(reported).at(-1);
    expect(error?.code).toBe('INTERNAL_SERVER_ERROR');
    expect(error?.cause?.message).toMatch(new RegExp(`^The client_credentials grant answered what RFC 6749 §5.1 refuses as a token response: ${field}: `));
  });

  it.each([
    ['0', 'zero', 0],
    ['2^31 - 1', 'max-int32', 2 ** 31 - 1],
  ] as const)('answers an expires_in of %s', async (_name, scope, expiresIn) => {
    const answer = await post(face, 'token', scope);
    expect(answer.status).toBe(200);
    expect(isRest(face) ? answer.body : answer.body.result.data).toEqual({ access_token: 'a', token_type: 'Bearer', expires_in: expiresIn });
  });
});
