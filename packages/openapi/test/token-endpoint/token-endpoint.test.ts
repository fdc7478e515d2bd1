import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '@trpc-oauth2/test-kit';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { PKCE, revoked, tokenRouter } from './token-router.js';

// docs/contract.md#token-responses and docs/contract.md#client-authentication, on all four faces.

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(tokenRouter, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(faces).map((running) => running.close()));
});

const basic = (id: string, secret: string) => `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;

interface Answer {
  status: number;
  headers: Headers;
  /** RFC 6749 §5.1 on success; on failure `{ error, error_description }` as the face carries it. */
  body: any;
}

/** Posts a urlencoded form to the endpoint on `face`, and reads the answer the same way whatever the face. */
async function post(face: Face, procedure: 'token' | 'revoke', fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
  const running = faces[face];
  const url = isRest(face) ? `${running.origin}/api/${procedure}` : `${running.origin}/trpc/${procedure}`;
  const response = await fetch(url, { method: 'POST', body: new URLSearchParams(fields), headers });
  const json: any = JSON.parse(await response.text());
  if (isRest(face)) return { status: response.status, headers: response.headers, body: json };
  if (json.error) {
    const { error, error_description } = json.error.data.oauth2 ?? { error: 'invalid_request', error_description: json.error.message };
    return { status: response.status, headers: response.headers, body: { error, error_description } };
  }
  return { status: response.status, headers: response.headers, body: json.result.data };
}

const alice = { grant_type: 'password', username: 'alice', password: 'wonderland' };

/**
 * Posts `body` as it is to the endpoint on `face`; a refusal read as RFC 6749 §5.2 says, with the
 * stable code the tRPC faces carry on `data.oauth2` (none on REST, whose body is the §5.2 one).
 */
async function postRaw(face: Face, procedure: 'token' | 'revoke', body: BodyInit, headers: Record<string, string> = { 'content-type': 'application/json' }) {
  const running = faces[face];
  const url = isRest(face) ? `${running.origin}/api/${procedure}` : `${running.origin}/trpc/${procedure}`;
  const response = await fetch(url, { method: 'POST', body, headers });
  const json: any = JSON.parse(await response.text());
  const oauth2 = isRest(face) ? undefined : json.error?.data?.oauth2;
  const refusal = isRest(face) ? json : { error: oauth2?.error, error_description: oauth2?.error_description };
  const trpc = isRest(face) ? undefined : { code: json.error?.data?.code as string | undefined, message: json.error?.message as string | undefined };
  return { status: response.status, headers: response.headers, body: refusal, code: oauth2?.code as string | undefined, trpc };
}

describe.each(FACES)('the token endpoint on %s', (face) => {
  it.each<[string, Record<string, string>, Record<string, string>, unknown]>([
    ['a password grant', alice, {}, { access_token: 'at-alice-public', token_type: 'Bearer', expires_in: 60, refresh_token: 'rt-1', scope: 'me' }],
    ['a password grant by a confidential client over Basic', alice, { authorization: basic('app', 's3cret') }, expect.objectContaining({ access_token: 'at-alice-app' })],
    ['a password grant over Basic with the client named in the form too', { ...alice, client_id: 'app' }, { authorization: basic('app', 's3cret') }, expect.objectContaining({ access_token: 'at-alice-app' })],
    ['a password grant by a confidential client in the form', { ...alice, client_id: 'app', client_secret: 's3cret' }, {}, expect.objectContaining({ access_token: 'at-alice-app' })],
    ['a refresh grant', { grant_type: 'refresh_token', refresh_token: 'rt-1' }, {}, { access_token: 'at-refreshed', token_type: 'Bearer' }],
    ['a client credentials grant', { grant_type: 'client_credentials' }, { authorization: basic('svc', 'svc-secret') }, { access_token: 'at-svc', token_type: 'Bearer' }],
    ['an authorization code grant with its PKCE verifier', { grant_type: 'authorization_code', code: 'code-1', code_verifier: PKCE.verifier }, {}, { access_token: 'at-code', token_type: 'Bearer' }],
  ])('answers %s with 200, RFC 6749 §5.1 and no-store', async (_name, fields, headers, expected) => {
    const answer = await post(face, 'token', fields, headers);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(expected);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('pragma')).toBe('no-cache');
  });

  it.each<[string, Record<string, string>, Record<string, string>, number, string, string, string | null]>([
    ['no grant_type', { username: 'alice', password: 'wonderland' }, {}, 400, 'invalid_request', 'grant_type: field required', null],
    ['a missing field of its grant', { grant_type: 'password', username: 'alice' }, {}, 400, 'invalid_request', 'password: field required', null],
    ['a grant not registered', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code' }, {}, 400, 'unsupported_grant_type', 'Supported grant types: password, refresh_token, client_credentials, authorization_code', null],
    ['a wrong password', { ...alice, password: 'x' }, {}, 400, 'invalid_grant', 'Incorrect username or password', null],
    ['a wrong PKCE verifier', { grant_type: 'authorization_code', code: 'code-1', code_verifier: 'a'.repeat(43) }, {}, 400, 'invalid_grant', 'Invalid authorization code or code_verifier', null],
    ['a scope the server refuses', { ...alice, scope: 'admin' }, {}, 400, 'invalid_scope', 'Unknown scope', null],
    ['a client limited to other grants', alice, { authorization: basic('svc', 'svc-secret') }, 400, 'unauthorized_client', 'This client may not use the password grant', null],
    ['a handler refusing the client', { grant_type: 'client_credentials' }, {}, 400, 'unauthorized_client', 'Public clients may not use client_credentials', null],
    ['a wrong secret over Basic: with the Basic challenge', alice, { authorization: basic('app', 'nope') }, 401, 'invalid_client', 'Client authentication failed', 'Basic'],
    ['a wrong secret in the form: no challenge', { ...alice, client_id: 'app', client_secret: 'nope' }, {}, 401, 'invalid_client', 'Client authentication failed', null],
    ['an unknown client in the form: no challenge', { ...alice, client_id: 'intruder' }, {}, 401, 'invalid_client', 'Client authentication failed', null],
    ['malformed Basic credentials', alice, { authorization: 'Basic !!!' }, 401, 'invalid_client', 'Malformed client credentials in the Basic Authorization header', 'Basic'],
    ['both client authentication methods', { ...alice, client_id: 'app', client_secret: 's3cret' }, { authorization: basic('app', 's3cret') }, 400, 'invalid_request', 'Use one client authentication method: the Basic header or the form fields, not both', null],
    ['Basic and a form client_id naming another client', { ...alice, client_id: 'svc' }, { authorization: basic('app', 's3cret') }, 400, 'invalid_request', 'Use one client authentication method: the Basic header or the form fields, not both', null],
  ])('refuses %s in RFC 6749 §5.2 shape', async (_name, fields, headers, status, error, description, challenge) => {
    const answer = await post(face, 'token', fields, headers);
    expect({ status: answer.status, body: answer.body }).toEqual({ status, body: { error, error_description: description } });
    expect(answer.headers.get('www-authenticate')).toBe(challenge);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('pragma')).toBe('no-cache');
  });

  it('answers a multipart form as it answers a urlencoded one', async () => {
    const running = faces[face];
    const url = isRest(face) ? `${running.origin}/api/token` : `${running.origin}/trpc/token`;
    const form = new FormData();
    for (const [name, value] of Object.entries(alice)) form.append(name, value);
    const response = await fetch(url, { method: 'POST', body: form });
    const json: any = await response.json();
    expect(response.status).toBe(200);
    expect(isRest(face) ? json : json.result.data).toMatchObject({ access_token: 'at-alice-public', token_type: 'Bearer' });
  });

  it("refuses a body over the endpoint's own limit with 413 before reading it, JSON and multipart included", async () => {
    const running = faces[face];
    const url = isRest(face) ? `${running.origin}/api/token` : `${running.origin}/trpc/token`;
    const multipart = `--b\r\ncontent-disposition: form-data; name="username"\r\n\r\n${'a'.repeat(3_000)}\r\n--b--\r\n`;
    for (const [type, body] of [
      ['application/x-www-form-urlencoded', `username=${'a'.repeat(3_000)}`],
      ['application/json', JSON.stringify({ username: 'a'.repeat(3_000) })],
      // On tRPC a multipart body is tRPC's own to read (a FormData input): within the endpoint's limit too.
      ['multipart/form-data; boundary=b', multipart],
    ] as const) {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': type }, body });
      expect(response.status, type).toBe(413);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const json: any = await response.json();
      if (isRest(face)) expect(json).toEqual({ error: 'invalid_request', error_description: 'Request body larger than 2000 bytes' });
      else expect(json.error.data.oauth2).toMatchObject({ code: 'ERR_BODY_TOO_LARGE' });
    }
  });

  it("holds the endpoint's own limit on every spelling of its path that routes to it (dot segments, escaped dots, case, a trailing slash, any base path of the same length on tRPC)", async () => {
    const running = faces[face];
    const base = isRest(face) ? '/api' : '/trpc';
    // trpc-to-openapi matches a route case-insensitively and without its trailing slash; tRPC
    // matches a procedure's path exactly, so these reach the endpoint on the REST faces only.
    const restOnly = isRest(face) ? [`${base}/TOKEN`, `${base}/Token`, `${base}/tOkEn/`, `${base}/token/`, `${base}/./ToKeN/?x=1`] : [];
    // tRPC's adapters cut their base path off by its length, whatever it says: any four
    // characters there reach the procedure.
    const trpcOnly = isRest(face) ? [] : ['/TRPC/token', '/abcd/token', '/tRpC/./token', '/xxxx/token/'];
    const forms = [
      ['application/json', JSON.stringify({ username: 'a'.repeat(3_000) })],
      ['application/x-www-form-urlencoded', `grant_type=password&password=wonderland&username=${'a'.repeat(50_000)}`],
    ] as const;
    // Written byte for byte: fetch would resolve the dot segments before sending.
    const send = (path: string, type: string, body: string) => rawRequest(running.origin, { method: 'POST', path, headers: [['content-type', type]], body });
    for (const path of [`${base}/./token`, `${base}/x/../token`, `${base}/%2e/token`, `${base}/%2E/x/%2e%2e/token`, `${base}/token?x=1`, ...restOnly, ...trpcOnly]) {
      for (const [type, body] of forms) {
        const answer = await send(path, type, body);
        expect(answer.status, `${path} ${type}: ${answer.body.slice(0, 200)}`).toBe(413);
        expect(answer.body, path).toContain('Request body larger than 2000 bytes');
      }
    }
  });

  it.each<[string, string, string]>([
    ['a password that is a number', '{"grant_type":"password","username":"alice","password":5}', 'password: must be text'],
    ['a username that is an object', '{"grant_type":"password","username":{"a":1},"password":"wonderland"}', 'username: must be text'],
    ['two fields that are not text', '{"grant_type":"password","username":true,"password":[1]}', 'username: must be text; password: must be text'],
    ['a grant_type that is a number', '{"grant_type":5}', 'grant_type: must be text'],
    ['a body that is null', 'null', 'grant_type: field required'],
    ['a body that is a string', '"grant_type=password"', 'grant_type: field required'],
    ['a body that is an array', '[{"grant_type":"password"}]', 'grant_type: field required'],
    ['a body that is a number', '5', 'grant_type: field required'],
  ])('refuses %s in JSON as invalid_request, ERR_INVALID_REQUEST on tRPC (never the input check’s issue list)', async (_name, body, description) => {
    const answer = await postRaw(face, 'token', body);
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: description } });
    if (!isRest(face)) expect(answer.code).toBe('ERR_INVALID_REQUEST');
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it.each(['al%FFice', 'al%FEice', 'al%C3ice'])('refuses a urlencoded username %s, not UTF-8, with 400: never read as U+FFFD', async (username) => {
    const answer = await postRaw(face, 'token', `grant_type=password&password=wonderland&username=${username}`, { 'content-type': 'application/x-www-form-urlencoded' });
    const description = 'Failed to parse the application/x-www-form-urlencoded request body';
    expect(answer.status).toBe(400);
    // Over tRPC the refusal is the body policy's, whose stable code names no RFC 6749 `error`.
    if (isRest(face)) expect(answer.body).toEqual({ error: 'invalid_request', error_description: description });
    else expect({ code: answer.code, description: answer.body.error_description }).toEqual({ code: 'ERR_MALFORMED_BODY', description });
  });

  it('refuses a JSON body that is not UTF-8 with 400 (RFC 8259 §8.1)', async () => {
    const body = new Uint8Array([...new TextEncoder().encode('{"grant_type":"password","password":"wonderland","username":"al'), 0xff, ...new TextEncoder().encode('ice"}')]);
    const answer = await postRaw(face, 'token', body);
    // As JSON that does not parse: PARSE_ERROR (docs/contract.md#body-limits).
    expect(answer.status).toBe(400);
    if (isRest(face)) expect(answer.body).toEqual({ error: 'invalid_request', error_description: 'Failed to parse request body' });
  });

  // RFC 9110 §15.5.16: no face decodes a content coding, so none reads a body that has one.
  it.each<[string, string, BodyInit, string]>([
    ['a gzip form', 'gzip', gzipSync(new URLSearchParams(alice).toString()), 'application/x-www-form-urlencoded'],
    ['a plain form labelled gzip', 'GZip', new URLSearchParams(alice).toString(), 'application/x-www-form-urlencoded'],
    ['a JSON body labelled deflate after identity', 'identity, deflate', JSON.stringify(alice), 'application/json'],
    ['a multipart form labelled br', 'br', (() => { const form = new FormData(); for (const [name, value] of Object.entries(alice)) form.append(name, value); return form; })(), ''],
  ])('refuses %s with 415 before reading it, in RFC 6749 shape', async (_name, encoding, body, type) => {
    const answer = await postRaw(face, 'token', body, { 'content-encoding': encoding, ...(type === '' ? {} : { 'content-type': type }) });
    const description = `Unsupported content-encoding "${encoding.split(',').at(-1)!.trim().toLowerCase()}"`;
    expect(answer.status).toBe(415);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    // RFC 6749's error_description drops the quotes (docs/contract.md#token-responses).
    if (isRest(face)) expect(answer.body).toEqual({ error: 'invalid_request', error_description: description.replaceAll('"', '') });
    else expect(answer.trpc).toEqual({ code: 'UNSUPPORTED_MEDIA_TYPE', message: description });
  });

  // An answer tRPC gives before it knows the procedure's path is the endpoint's answer all the same.
  it.each([
    ['text/plain', 'token'],
    ['', 'token'],
    ['text/plain', 'revoke'],
    ['application/xml', 'token'],
  ] as const)('answers a body of type %j at /%s with a 415 that is not stored', async (type, procedure) => {
    const answer = await postRaw(face, procedure, new URLSearchParams(alice).toString(), type === '' ? {} : { 'content-type': type });
    expect(answer.status).toBe(415);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('pragma')).toBe('no-cache');
  });

  it('reads a body labelled identity as any other', async () => {
    const answer = await postRaw(face, 'token', new URLSearchParams(alice).toString(), { 'content-encoding': 'Identity', 'content-type': 'application/x-www-form-urlencoded' });
    expect(answer.status).toBe(200);
  });

  it('answers a path with a malformed escape with 400, and keeps serving', async () => {
    const running = faces[face];
    const base = isRest(face) ? `${running.origin}/api` : `${running.origin}/trpc`;
    const response = await fetch(`${base}/%E0%A4%A`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    await response.body?.cancel();
    expect((await post(face, 'token', alice)).status).toBe(200);
  });
});

// docs/contract.md#token-responses: `server_error`'s message is not sent, on any face; the fault
// itself reaches `onError`, as the error's cause.
describe.each(FACES)('a fault of the server at the token or revocation endpoint on %s', (face) => {
  it.each([
    ['a grant handler', 'token', { grant_type: 'password', username: 'fault', password: 'the-secret-password' }, 'database down while checking the password the-secret-password'],
    ['a grant handler whose fault wraps a refusal', 'token', { grant_type: 'password', username: 'wrapped', password: 'the-secret-password' }, 'user store failed for the-secret-password'],
    ['revoke', 'revoke', { token: 'fault', client_id: 'app', client_secret: 's3cret' }, 'revocation store down at postgres://admin:hunter2@db'],
  ] as const)('%s that throws is a 500 that does not send its message', async (_name, procedure, fields, fault) => {
    const running = faces[face];
    const reported = running.errors.length;
    const url = isRest(face) ? `${running.origin}/api/${procedure}` : `${running.origin}/trpc/${procedure}`;
    const response = await fetch(url, { method: 'POST', body: new URLSearchParams(fields) });
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(text).not.toContain(fault.split(' ').at(-1)!);
    expect(text).toContain('The request could not be completed');
    const error = running.errors.slice(reported).at(-1);
    expect(error?.cause?.message).toBe(fault);
  });
});

describe.each(FACES)('the revocation endpoint on %s (RFC 7009)', (face) => {
  it('revokes a token, and answers 200 for an unknown one too', async () => {
    const answer = await post(face, 'revoke', { token: `rt-${face}`, token_type_hint: 'refresh_token' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({});
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(revoked).toContain(`rt-${face}`);
  });

  it('revokes a token sent with a hint it does not know: the hint only says where to look first (RFC 7009 §2.1)', async () => {
    const answer = await post(face, 'revoke', { token: `hinted-${face}`, token_type_hint: 'id_token' });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: {} });
    expect(revoked).toContain(`hinted-${face}`);
  });

  it.each<[string, string, string]>([
    ['a token that is a number', '{"token":5}', 'token: must be text'],
    ['a hint that is not text', '{"token":"x","token_type_hint":["refresh_token"]}', 'token_type_hint: must be text'],
    ['a body that is not an object', '["x"]', 'token: field required'],
  ])('refuses %s in JSON as invalid_request, ERR_INVALID_REQUEST on tRPC', async (_name, body, description) => {
    const answer = await postRaw(face, 'revoke', body);
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 400, body: { error: 'invalid_request', error_description: description } });
    if (!isRest(face)) expect(answer.code).toBe('ERR_INVALID_REQUEST');
  });

  it.each<[string, Record<string, string>, Record<string, string>, number, string, string | null]>([
    ['a missing token', {}, {}, 400, 'invalid_request', null],
    ['a wrong client secret over Basic', { token: 'x' }, { authorization: basic('app', 'nope') }, 401, 'invalid_client', 'Basic'],
    ['a wrong client secret in the form', { token: 'x', client_id: 'app', client_secret: 'nope' }, {}, 401, 'invalid_client', null],
  ])('refuses %s', async (_name, fields, headers, status, error, challenge) => {
    const answer = await post(face, 'revoke', fields, headers);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toBe(error);
    expect(answer.headers.get('www-authenticate')).toBe(challenge);
  });
});
