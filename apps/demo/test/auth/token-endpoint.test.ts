import { describe, expect, it, vi } from 'vitest';
import { demoClient, refusalOf } from '../../src/client/demo-client.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { basic, bearer, login, postToken, request } from '../support/http.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();

const alice = { username: 'alice', password: 'wonderland' };
const cli = { client_id: 'demo-cli', client_secret: 'demo-cli-secret' };

describe('POST /api/token: success (RFC 6749 §5.1)', () => {
  it('answers the token response with Cache-Control: no-store', async () => {
    const { status, headers, body } = await postToken(demo.url, { ...alice, grant_type: 'password', scope: 'me items' });
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('pragma')).toBe('no-cache');
    expect(headers.get('content-type')).toBe('application/json');
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'refresh_token', 'scope', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'me items' });
    expect(body.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(body.refresh_token).toMatch(/^[\w-]{43}$/);
  });

  it.each([
    ['no scope asked: every scope the user may have', 'alice', 'wonderland', undefined, 'me items'],
    ['a narrower scope', 'alice', 'wonderland', 'items', 'items'],
    ['scopes separated by runs of whitespace, duplicates dropped', 'alice', 'wonderland', ' me \t items me', 'me items'],
    ['bob, who may only have me', 'bob', 'builder', undefined, 'me'],
  ])('grants %s', async (_name, username, password, scope, granted) => {
    expect((await login(demo.url, username, password, scope)).scope).toBe(granted);
  });

  it.each([
    ['urlencoded', () => new URLSearchParams(alice)],
    ['multipart', () => Object.entries(alice).reduce((form, [k, v]) => (form.append(k, v), form), new FormData())],
  ])('reads a %s body', async (_name, body) => {
    const { status, body: token } = await request(`${demo.url}/api/token`, { method: 'POST', body: body() });
    expect(status).toBe(200);
    expect(token.scope).toBe('me items');
  });

  it('reads a JSON body', async () => {
    const { status } = await request(`${demo.url}/api/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(alice),
    });
    expect(status).toBe(200);
  });

  it.each([
    ['HTTP Basic', basic(cli.client_id, cli.client_secret), {}],
    ['the form fields', {}, cli],
    ['HTTP Basic with the empty secret of a public client (what Swagger UI sends)', basic('swagger-ui', ''), {}],
    ['the form field client_id alone for a public client', {}, { client_id: 'swagger-ui' }],
  ])('authenticates the client by %s', async (_name, headers, fields) => {
    expect((await postToken(demo.url, { ...alice, ...fields }, headers)).status).toBe(200);
  });
});

describe('POST /api/token: errors (RFC 6749 §5.2)', () => {
  it.each<[string, Record<string, string>, Record<string, string>, number, string, string]>([
    ['wrong password', { username: 'alice', password: 'nope' }, {}, 400, 'invalid_grant', 'Incorrect username or password'],
    ['unknown user: the same answer', { username: 'nobody', password: 'nope' }, {}, 400, 'invalid_grant', 'Incorrect username or password'],
    ['missing username', { password: 'x' }, {}, 400, 'invalid_request', 'username: field required'],
    ['empty username and no password', { username: '' }, {}, 400, 'invalid_request', 'username: field required; password: field required'],
    ['grant_type of another flow', { ...alice, grant_type: 'client_credentials' }, {}, 400, 'unsupported_grant_type', 'Supported grant types: password, refresh_token'],
    ['grant_type in the wrong case', { ...alice, grant_type: 'Password' }, {}, 400, 'unsupported_grant_type', 'Supported grant types: password, refresh_token'],
    ['a scope the server does not know', { ...alice, scope: 'me admin' }, {}, 400, 'invalid_scope', 'Unknown scope requested; known scopes: me, items'],
    ['a scope the user may not have', { username: 'bob', password: 'builder', scope: 'items' }, {}, 400, 'invalid_scope', 'The requested scope exceeds what this user may be granted'],
    ['an unknown client', { ...alice, client_id: 'intruder', client_secret: 'x' }, {}, 401, 'invalid_client', 'Client authentication failed'],
    ['a wrong client secret', { ...alice, client_id: 'demo-cli', client_secret: 'guess' }, {}, 401, 'invalid_client', 'Client authentication failed'],
    ['a client id without its secret', { ...alice, client_id: 'demo-cli' }, {}, 401, 'invalid_client', 'Client authentication failed'],
    ['a wrong secret over Basic', alice, basic('demo-cli', 'guess'), 401, 'invalid_client', 'Client authentication failed'],
    ['malformed Basic credentials', alice, { authorization: 'Basic !!!' }, 401, 'invalid_client', 'Malformed client credentials in the Basic Authorization header'],
    ['both client authentication methods', { ...alice, ...cli }, basic('demo-cli', 'demo-cli-secret'), 400, 'invalid_request', 'Use one client authentication method: the Basic header or the form fields, not both'],
    ['an unknown refresh token', { grant_type: 'refresh_token', refresh_token: 'nope' }, {}, 400, 'invalid_grant', 'The refresh token is invalid, expired or revoked'],
    ['a refresh request without its token', { grant_type: 'refresh_token' }, {}, 400, 'invalid_request', 'refresh_token: field required'],
  ])('%s', async (_name, fields, headers, status, error, description) => {
    const response = await postToken(demo.url, fields, headers);
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error, error_description: description });
    expect(response.headers.get('cache-control')).toBe('no-store');
    // RFC 6749 §5.2: the Basic challenge answers a client that used the Authorization header, only.
    const usedBasic = 'authorization' in headers;
    expect(response.headers.get('www-authenticate')).toBe(status === 401 && usedBasic ? 'Basic' : null);
  });

  it('answers in RFC 6749 shapes at /api/token/ too (trailing slash)', async () => {
    const response = await request(`${demo.url}/api/token/`, { method: 'POST', body: new URLSearchParams({ username: 'x', password: 'y' }) });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_grant', error_description: 'Incorrect username or password' });
  });

  it('never echoes the password or the client secret', async () => {
    const secret = 'Sup3r-s3cret-value';
    const bodies = await Promise.all([
      postToken(demo.url, { username: 'alice', password: secret, grant_type: 'nope' }),
      postToken(demo.url, { username: 'alice', password: secret, client_id: 'x', client_secret: secret }),
      postToken(demo.url, { password: secret, client_secret: secret }),
    ]);
    for (const { body } of bodies) expect(JSON.stringify(body)).not.toContain(secret);
  });

  it.each<[string, RequestInit, number, string]>([
    ['no Content-Type', { body: new Uint8Array([1, 2]) }, 415, 'Missing content-type header'],
    ['text/plain', { body: 'username=alice', headers: { 'content-type': 'text/plain' } }, 415, 'Unsupported content-type text/plain'],
    ['malformed JSON', { body: '{"username":', headers: { 'content-type': 'application/json' } }, 400, 'Failed to parse request body'],
    ['a JSON array', { body: '[1]', headers: { 'content-type': 'application/json' } }, 400, 'username: field required; password: field required'],
    ['a form over 16 KiB', { body: `username=${'a'.repeat(17_000)}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 413, 'Request body larger than 16384 bytes'],
    ['JSON over 16 KiB', { body: JSON.stringify({ username: 'a'.repeat(17_000) }), headers: { 'content-type': 'application/json' } }, 413, 'Request body larger than 16384 bytes'],
  ])('refuses a body with %s', async (_name, init, status, description) => {
    const response = await request(`${demo.url}/api/token`, { method: 'POST', ...init });
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error: 'invalid_request', error_description: description });
  });
});

describe('refresh tokens: rotation and family revocation', () => {
  const refresh = (refresh_token: string, extra: Record<string, string> = {}) =>
    postToken(demo.url, { grant_type: 'refresh_token', refresh_token, ...extra });

  it('rotates on use; a reused token is refused and revokes its whole family', async () => {
    const first = await login(demo.url, 'alice', 'wonderland');
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.headers.get('cache-control')).toBe('no-store');
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.scope).toBe('me items');
    expect((await request(`${demo.url}/api/users/me`, { headers: bearer(second.body.access_token) })).status).toBe(200);

    const reused = await refresh(first.refresh_token);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    // The successor was never used, but it belongs to the revoked family.
    expect((await refresh(second.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('lets two concurrent uses of one token succeed at most once', async () => {
    const { refresh_token } = await login(demo.url, 'bob', 'builder');
    const results = await Promise.all([refresh(refresh_token), refresh(refresh_token), refresh(refresh_token)]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it('narrows the scope on request, and refuses to widen it without spending the token', async () => {
    const { refresh_token } = await login(demo.url, 'alice', 'wonderland', 'me');
    const wider = await refresh(refresh_token, { scope: 'me items' });
    expect(wider.status).toBe(400);
    expect(wider.body).toEqual({ error: 'invalid_scope', error_description: 'The requested scope exceeds the scope originally granted' });
    const same = await refresh(refresh_token, { scope: 'me' });
    expect(same.status).toBe(200);
    expect(same.body.scope).toBe('me');
  });

  it('binds a token to the client it was issued to (RFC 6749 §6)', async () => {
    const { body } = await postToken(demo.url, { ...alice, ...cli });
    const anonymous = await refresh(body.refresh_token);
    expect(anonymous.body.error).toBe('invalid_grant');
    // The refused attempt did not spend it: the right client still can.
    expect((await refresh(body.refresh_token, cli)).status).toBe(200);
  });
});

describe('the tRPC face of the token endpoint', () => {
  it('logs in and refreshes through the mutations, with Cache-Control: no-store', async () => {
    const client = demoClient(demo.url);
    const tokens = await client.auth.token.mutate({ ...alice, scope: 'me' });
    expect(tokens.scope).toBe('me');
    const next = await client.auth.token.mutate({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect(next.scope).toBe('me');
    const raw = await fetch(`${demo.url}/trpc/auth.token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ json: alice }),
    });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('cache-control')).toBe('no-store');
  });

  it('accepts a urlencoded form', async () => {
    const response = await request(`${demo.url}/trpc/auth.token`, { method: 'POST', body: new URLSearchParams(alice) });
    expect(response.status).toBe(200);
    expect(response.body.result.data.json.scope).toBe('me items');
  });

  it.each([
    ['a wrong password', { username: 'alice', password: 'x' }, 400, 'ERR_INVALID_GRANT'],
    ['a wrong client secret', { ...alice, client_id: 'demo-cli', client_secret: 'x' }, 401, 'ERR_INVALID_CLIENT'],
    ['a scope the user may not have', { username: 'bob', password: 'builder', scope: 'items' }, 400, 'ERR_INVALID_SCOPE'],
  ])('refuses %s with a stable code', async (_name, input, status, code) => {
    const refusal = await refusalOf(demoClient(demo.url).auth.token.mutate(input));
    expect({ status: refusal.status, code: refusal.code }).toEqual({ status, code });
  });
});

describe('logging out: revocation (RFC 7009)', () => {
  const revoke = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    request(`${demo.url}/api/revoke`, { method: 'POST', body: new URLSearchParams(fields), headers });

  it('revokes a refresh token’s family over REST, with no-store, and answers 200 for an unknown token', async () => {
    const first = await login(demo.url, 'alice', 'wonderland');
    const second = await postToken(demo.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    const answer = await revoke({ token: first.refresh_token, token_type_hint: 'refresh_token' });
    expect({ status: answer.status, body: answer.body, cacheControl: answer.headers.get('cache-control') }).toEqual({ status: 200, body: {}, cacheControl: 'no-store' });
    // The family is gone: the successor of the revoked token is refused.
    expect((await postToken(demo.url, { grant_type: 'refresh_token', refresh_token: second.body.refresh_token })).body.error).toBe('invalid_grant');
    expect((await revoke({ token: 'never-issued' })).status).toBe(200);
  });

  it.each(['access_token', 'id_token', 'nonsense'])('revokes a refresh token sent with the wrong hint %s (RFC 7009 §2.1)', async (hint) => {
    const first = await login(demo.url, 'alice', 'wonderland');
    const answer = await revoke({ token: first.refresh_token, token_type_hint: hint });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: {} });
    expect((await postToken(demo.url, { grant_type: 'refresh_token', refresh_token: first.refresh_token })).body.error).toBe('invalid_grant');
  });

  it.each<[string, Record<string, string>, Record<string, string>, number, string]>([
    ['a wrong client secret', { token: 'x', client_id: 'demo-cli', client_secret: 'guess' }, {}, 401, 'invalid_client'],
  ])('refuses %s', async (_name, fields, headers, status, error) => {
    const answer = await revoke(fields, headers);
    expect({ status: answer.status, error: answer.body.error }).toEqual({ status, error });
  });

  it('leaves another client’s token alone', async () => {
    const { body } = await postToken(demo.url, { ...alice, ...cli });
    expect((await revoke({ token: body.refresh_token })).status).toBe(200);
    expect((await postToken(demo.url, { grant_type: 'refresh_token', refresh_token: body.refresh_token, ...cli })).status).toBe(200);
  });

  it('revokes through the tRPC mutation auth.revoke', async () => {
    const client = demoClient(demo.url);
    const tokens = await client.auth.token.mutate(alice);
    expect(await client.auth.revoke.mutate({ token: tokens.refresh_token })).toEqual({});
    const refused = await refusalOf(client.auth.token.mutate({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }));
    expect({ status: refused.status, code: refused.code }).toEqual({ status: 400, code: 'ERR_INVALID_GRANT' });
  });
});
