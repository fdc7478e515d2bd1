/**
 * docs/contract.md#the-password-request-form ("`multipart/form-data` with a file part": 400) and
 * docs/contract.md#body-limits ("A token or revocation endpoint"): the body policy reads every
 * token or revocation call's multipart form itself, on every face, whether or not the endpoint
 * has a `maxBodySize` of its own. A form with a file part is refused with 400 `ERR_FILE_FIELD`
 * before the endpoint runs (never a token issued for it, whatever field the file stands in), and
 * a form of text fields is read as on the REST faces. Its JSON is the policy's too: JSON that is
 * not UTF-8 is 400 `PARSE_ERROR`, never read as U+FFFD.
 */
import { oauth2ErrorData, revocationEndpoint, tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '@trpc-oauth2/test-kit';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

let calls = 0;
// Neither endpoint has a maxBodySize of its own.
const router = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: null }) })
    .grant('password', ({ form }) => {
      calls += 1;
      return { access_token: `at-${form.username}`, token_type: 'Bearer' };
    })
    .build(),
  revoke: revocationEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/revoke' } }), {
    authenticateClient: () => ({ id: null }),
    tokenTypes: ['refresh_token'],
    revoke: () => void (calls += 1),
  }),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

const file = () => new Blob(['x']);

/** Forms with a file part, each with the field the refusal names. */
const FILE_FORMS: [string, 'token' | 'revoke', string, () => FormData][] = [
  ['a file part beside the text fields', 'token', 'avatar', () => {
    const form = new FormData();
    form.set('grant_type', 'password');
    form.set('username', 'alice');
    form.set('password', 'wonderland');
    form.set('avatar', file(), 'a.png');
    return form;
  }],
  ['a file part for username, then a text one (the last value)', 'token', 'username', () => {
    const form = new FormData();
    form.append('grant_type', 'password');
    form.append('username', file(), 'a.png');
    form.append('username', 'alice');
    form.set('password', 'wonderland');
    return form;
  }],
  ['a file part for the token to revoke', 'revoke', 'token', () => {
    const form = new FormData();
    form.set('token', file(), 'rt.txt');
    return form;
  }],
];

const urlOf = (face: Face, procedure: 'token' | 'revoke') => `${faces[face].origin}${isRest(face) ? '/api' : '/trpc'}/${procedure}`;

describe.each(FACES)('a multipart request to an endpoint without a limit of its own on %s', (face) => {
  it.each(FILE_FORMS)('with %s is refused with 400 ERR_FILE_FIELD, the endpoint not run', async (_name, procedure, field, form) => {
    const before = calls;
    const response = await fetch(urlOf(face, procedure), { method: 'POST', body: form() });
    const body = await response.json();
    expect(response.status).toBe(400);
    expect(response.headers.get('cache-control')).toBe('no-store');
    // The field's quotes are not error_description characters (RFC 6749 §5.2): dropped.
    const description = `Form field ${field} is a file: only text fields are accepted`;
    if (isRest(face)) expect(body).toEqual({ error: 'invalid_request', error_description: description });
    else expect(body.error.data.oauth2).toEqual({ code: 'ERR_FILE_FIELD', error: 'invalid_request', error_description: description, challenge: null, dpopNonce: null });
    expect(calls).toBe(before);
  });

  it('of text fields is read: a token is issued', async () => {
    const form = new FormData();
    form.set('grant_type', 'password');
    form.set('username', 'alice');
    form.set('password', 'wonderland');
    const response = await fetch(urlOf(face, 'token'), { method: 'POST', body: form });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(isRest(face) ? body : body.result.data).toEqual({ access_token: 'at-alice', token_type: 'Bearer' });
  });
});

describe.each(FACES)('a multipart request whose text is not UTF-8 on %s', (face) => {
  // docs/contract.md#body-limits: never read as U+FFFD, where `al\xFFice` and `al\xFEice` would be one username.
  it.each([['FF', 0xff], ['FE', 0xfe]] as const)('(the byte 0x%s in the username) is refused with 400 ERR_MALFORMED_BODY, the endpoint not run', async (_hex, byte) => {
    const before = calls;
    const part = (name: string, value: Buffer) => [Buffer.from(`--b\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`), value, Buffer.from('\r\n')];
    const body = Buffer.concat([
      ...part('grant_type', Buffer.from('password')),
      ...part('username', Buffer.from([0x61, 0x6c, byte, 0x69, 0x63, 0x65])),
      ...part('password', Buffer.from('wonderland')),
      Buffer.from('--b--\r\n'),
    ]);
    const path = isRest(face) ? '/api/token' : '/trpc/token';
    const answer = await rawRequest(faces[face].origin, { method: 'POST', path, headers: [['content-type', 'multipart/form-data; boundary=b']], body });
    expect(answer.status, answer.body.slice(0, 300)).toBe(400);
    const json = JSON.parse(answer.body);
    const description = 'Failed to parse the multipart/form-data request body';
    if (isRest(face)) expect(json).toEqual({ error: 'invalid_request', error_description: description });
    else expect(json.error.data.oauth2).toEqual({ code: 'ERR_MALFORMED_BODY', error: 'invalid_request', error_description: description, challenge: null, dpopNonce: null });
    expect(calls).toBe(before);
  });
});

describe.each(FACES)('a JSON request to an endpoint without a limit of its own on %s', (face) => {
  it('that is not UTF-8 is refused with 400, the endpoint not run (RFC 8259 §8.1)', async () => {
    const before = calls;
    const body = Buffer.concat([Buffer.from('{"grant_type":"password","password":"wonderland","username":"al'), Buffer.from([0xff]), Buffer.from('ice"}')]);
    const path = isRest(face) ? '/api/token' : '/trpc/token';
    const answer = await rawRequest(faces[face].origin, { method: 'POST', path, headers: [['content-type', 'application/json']], body });
    expect(answer.status, answer.body.slice(0, 300)).toBe(400);
    expect(answer.body).toContain('Failed to parse request body');
    expect(calls).toBe(before);
  });
});
