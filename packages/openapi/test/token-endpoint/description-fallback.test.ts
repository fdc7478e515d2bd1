/**
 * docs/contract.md#token-responses: descriptions keep to RFC 6749 §5.2's `error_description`
 * characters, `1*( %x20-21 / %x23-5B / %x5D-7E )`: at least one. A refusal whose description has
 * none of them left (text in another script) is described as `The request was refused (<error>)`
 * on every face, never with an empty `error_description` (which the OpenAPI document marks
 * required, so it is never left out either).
 */
import { oauth2ErrorData, revocationEndpoint, tokenEndpoint, tokenError } from '@trpc-oauth2/core/token-endpoint';
import { TRPCError, initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FACES, REST_FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

const router = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: null }) })
    .grant('password', ({ form }) => {
      if (form.username === 'conflict') throw new TRPCError({ code: 'CONFLICT', message: '账户已锁定' });
      if (form.username === 'spaces') throw tokenError('invalid_grant', ' \u00a0 ');
      throw tokenError('invalid_grant', '密码错误');
    })
    .build(),
  revoke: revocationEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/revoke' } }), {
    authenticateClient: () => ({ id: null }),
    tokenTypes: ['refresh_token'],
    revoke: () => {
      throw tokenError('unsupported_token_type', 'トークンを取り消せません');
    },
  }),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

/** RFC 6749 §5.2's `error_description`: one or more of its characters. */
const ERROR_DESCRIPTION = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;

/** The §5.2 members of a refusal, as each face carries them: the body over REST, `data.oauth2` over tRPC. */
async function refusal(face: Face, procedure: 'token' | 'revoke', fields: Record<string, string>) {
  const url = `${faces[face].origin}${isRest(face) ? '/api' : '/trpc'}/${procedure}`;
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fields) });
  const body = await response.json();
  if (isRest(face)) return { status: response.status, error: body.error, error_description: body.error_description, message: undefined };
  const { error, error_description } = body.error.data.oauth2 ?? { error: 'invalid_request', error_description: body.error.message };
  return { status: response.status, error, error_description, message: body.error.message as string };
}

describe.each(FACES)('a refusal described in characters error_description cannot carry, on %s', (face) => {
  it.each([
    ['tokenError at the token endpoint', 'token', { grant_type: 'password', username: 'alice', password: 'x' }, 400, 'invalid_grant'],
    ['tokenError with spaces only', 'token', { grant_type: 'password', username: 'spaces', password: 'x' }, 400, 'invalid_grant'],
    ['tokenError at the revocation endpoint', 'revoke', { token: 'rt-1' }, 400, 'unsupported_token_type'],
  ] as const)('%s is described as The request was refused (<error>)', async (_name, procedure, fields, status, error) => {
    const answer = await refusal(face, procedure, fields);
    expect(answer).toMatchObject({ status, error, error_description: `The request was refused (${error})` });
    expect(answer.error_description).toMatch(ERROR_DESCRIPTION);
    // Over tRPC the message is the description too, never empty.
    if (!isRest(face)) expect(answer.message).toBe(answer.error_description);
  });
});

// Over tRPC a handler's own TRPCError is tRPC's error as it is (no `data.oauth2`): only REST
// answers it in RFC 6749 §5.2's shape, as `invalid_request` with its status.
describe.each(REST_FACES)("a handler's own client error described in characters error_description cannot carry, on %s", (face) => {
  it('is described as The request was refused (invalid_request)', async () => {
    const answer = await refusal(face, 'token', { grant_type: 'password', username: 'conflict', password: 'x' });
    expect(answer).toMatchObject({ status: 409, error: 'invalid_request', error_description: 'The request was refused (invalid_request)' });
  });
});
