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

describe.each(FACES)('the token endpoint on %s', (face) => {
  it.each<[string, Record<string, string>, Record<string, string>, unknown]>([
    ['a password grant', alice, {}, { access_token: 'at-alice-public', token_type: 'Bearer', expires_in: 60, refresh_token: 'rt-1', scope: 'me' }],
    ['a password grant by a confidential client over Basic', alice, { authorization: basic('app', 's3cret') }, expect.objectContaining({ access_token: 'at-alice-app' })],
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

  it("holds the endpoint's own limit on every spelling of its path that routes to it (dot segments, escaped dots)", async () => {
    const running = faces[face];
    const base = isRest(face) ? '/api' : '/trpc';
    const body = JSON.stringify({ username: 'a'.repeat(3_000) });
    // Written byte for byte: fetch would resolve the dot segments before sending.
    const send = (path: string) => rawRequest(running.origin, { method: 'POST', path, headers: [['content-type', 'application/json']], body });
    for (const path of [`${base}/./token`, `${base}/x/../token`, `${base}/%2e/token`, `${base}/%2E/x/%2e%2e/token`, `${base}/token?x=1`]) {
      const answer = await send(path);
      expect(answer.status, `${path}: ${answer.body.slice(0, 200)}`).toBe(413);
      expect(answer.body, path).toContain('Request body larger than 2000 bytes');
    }
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
