import { describe, expect, it, vi } from 'vitest';
import { demoClient } from '../../src/client/demo-client.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { request } from '../support/http.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();

const get = (route: string, authorization?: string) =>
  request(`${demo.url}/api/conformance/${route}`, { headers: authorization === undefined ? {} : { authorization } });

/** What each reader answers: 200 with its value, or the refusal. */
type Outcome = { value: string | null } | { status: 401 | 403 };
const ok = (value: string | null): Outcome => ({ value });
const REFUSED_401: Outcome = { status: 401 };
const REFUSED_403: Outcome = { status: 403 };

// The header table of docs/contract.md#reading-the-authorization-header: header → [base, bearer] outcomes.
const HEADERS: [string, string | undefined, Outcome, Outcome][] = [
  ['absent', undefined, REFUSED_403, REFUSED_401],
  ['empty', '', REFUSED_403, REFUSED_401],
  ['Bearer abc', 'Bearer abc', ok('Bearer abc'), ok('abc')],
  ['bearer abc', 'bearer abc', ok('bearer abc'), ok('abc')],
  ['BEARER abc', 'BEARER abc', ok('BEARER abc'), ok('abc')],
  ['extra spaces after the scheme', 'Bearer   abc', ok('Bearer   abc'), ok('abc')],
  ['a credential with a space', 'Bearer abc def', ok('Bearer abc def'), ok('abc def')],
  ['the scheme alone', 'Bearer', ok('Bearer'), ok('')],
  ['Basic', 'Basic YWxhZGRpbjpvcGVu', ok('Basic YWxhZGRpbjpvcGVu'), REFUSED_401],
  ['Token abc', 'Token abc', ok('Token abc'), REFUSED_401],
  ['Bearerabc', 'Bearerabc', ok('Bearerabc'), REFUSED_401],
  ['Bearer:abc', 'Bearer:abc', ok('Bearer:abc'), REFUSED_401],
  ['Bearer<TAB>abc', 'Bearer\tabc', ok('Bearer\tabc'), REFUSED_401],
];

// route → [reader kind, body key, optional]
const READER_ROUTES: [string, 'base' | 'bearer', 'authorization' | 'token', boolean][] = [
  ['base', 'base', 'authorization', false],
  ['base-optional', 'base', 'authorization', true],
  ['base-flows', 'base', 'authorization', false],
  ['password', 'bearer', 'token', false],
  ['password-optional', 'bearer', 'token', true],
  ['password-named', 'bearer', 'token', false],
  ['code', 'bearer', 'token', false],
  ['code-optional', 'bearer', 'token', true],
];

const CASES = READER_ROUTES.flatMap(([route, kind, key, optional]) =>
  HEADERS.map(([name, header, base, bearer]) => {
    const outcome = kind === 'base' ? base : bearer;
    return { route, name, header, key, outcome: 'status' in outcome && optional ? ok(null) : outcome };
  }),
);

describe('reader routes: the header table of docs/contract.md#reading-the-authorization-header', () => {
  it.each(CASES)('GET /$route, Authorization $name', async ({ route, header, key, outcome }) => {
    const response = await get(route, header);
    if ('value' in outcome) {
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ [key]: outcome.value });
    } else {
      expect(response.status).toBe(outcome.status);
      expect(response.body.message).toBe('Not authenticated');
      expect(response.headers.get('www-authenticate')).toBe(outcome.status === 401 ? 'Bearer' : null);
    }
  });
});

describe('scoped-token routes: SecurityScopes', () => {
  it.each([
    ['scoped-token', { token: 'abc', scopes: ['items'], scope_str: 'items' }],
    ['scoped-token-nested', { token: 'abc', scopes: ['me', 'items'], scope_str: 'me items' }],
  ])('GET /%s', async (route, body) => {
    const response = await get(route, 'Bearer abc');
    expect(response.status).toBe(200);
    expect(response.body).toEqual(body);
  });

  it.each(['scoped-token', 'scoped-token-nested'])('GET /%s without a token is 401', async (route) => {
    const response = await get(route);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });
});

const formBody = (overrides: Record<string, unknown> = {}) => ({
  grant_type: null,
  username: 'alice',
  password: 's3cret',
  scopes: [],
  client_id: null,
  client_secret: null,
  ...overrides,
});

type Fields = [string, string][];
const urlencoded = (fields: Fields) => ({ body: new URLSearchParams(fields) });
const multipart = (fields: Fields) => {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  return { body: form };
};
const json = (fields: Fields) => ({
  body: JSON.stringify(Object.fromEntries(fields)),
  headers: { 'content-type': 'application/json' },
});

describe('form routes: the password request form over REST', () => {
  const base: Fields = [['username', 'alice'], ['password', 's3cret']];
  const every: Fields = [['grant_type', 'password'], ...base, ['scope', 'me  items'], ['client_id', 'app'], ['client_secret', 'shh']];
  const full = formBody({ grant_type: 'password', scopes: ['me', 'items'], client_id: 'app', client_secret: 'shh' });

  it.each([
    ['urlencoded', urlencoded],
    ['multipart', multipart],
    ['JSON', json],
  ])('POST /form reads a %s body', async (_name, encode) => {
    const response = await request(`${demo.url}/api/conformance/form`, { method: 'POST', ...encode(every) });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(full);
  });

  it.each<[string, string, Fields, Record<string, unknown>]>([
    ['form', 'username and password only', base, formBody()],
    ['form', 'empty optional fields are absent', [...base, ['grant_type', ''], ['client_id', ''], ['scope', '']], formBody()],
    ['form', 'the last repeated value wins', [...base, ['username', 'bob'], ['scope', 'me'], ['scope', 'items']], formBody({ username: 'bob', scopes: ['items'] })],
    ['form-strict', 'grant_type password', [['grant_type', 'password'], ...base], formBody({ grant_type: 'password' })],
  ])('POST /%s: %s', async (route, _name, fields, body) => {
    const response = await request(`${demo.url}/api/conformance/${route}`, { method: 'POST', ...urlencoded(fields) });
    expect(response.status).toBe(200);
    expect(response.body).toEqual(body);
  });

  it.each<[string, string, Fields, string[]]>([
    ['form', 'missing username', [['password', 'x']], ['username: field required']],
    ['form', 'empty username and password', [['username', ''], ['password', '']], ['username: field required', 'password: field required']],
    ['form', 'grant_type Password', [['grant_type', 'Password'], ...base], ['grant_type: must be "password"']],
    ['form-strict', 'no grant_type', base, ['grant_type: field required']],
    ['form-strict', 'grant_type with a trailing space', [['grant_type', 'password '], ...base], ['grant_type: must be "password"']],
  ])('POST /%s refuses %s with 400 naming the field', async (route, _name, fields, messages) => {
    const response = await request(`${demo.url}/api/conformance/${route}`, { method: 'POST', ...urlencoded(fields) });
    expect(response.status).toBe(400);
    expect(response.body.issues.map((issue: { message: string }) => issue.message)).toEqual(messages);
    expect(JSON.stringify(response.body)).not.toContain('s3cret');
  });

  it('answers another body type with a 4xx', async () => {
    const response = await request(`${demo.url}/api/conformance/form`, {
      method: 'POST',
      body: 'username=alice',
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(415);
  });
});

describe('the same routes over tRPC', () => {
  it('reads the header and the form as over REST', async () => {
    const client = demoClient(demo.url, () => 'abc');
    expect(await client.conformance.password.query()).toEqual({ token: 'abc' });
    expect(await client.conformance.base.query()).toEqual({ authorization: 'Bearer abc' });
    expect(await client.conformance.scopedTokenNested.query()).toEqual({ token: 'abc', scopes: ['me', 'items'], scope_str: 'me items' });
    expect(await client.conformance.form.mutate({ username: 'alice', password: 's3cret', scope: 'me' })).toEqual(
      formBody({ scopes: ['me'] }),
    );
  });
});
