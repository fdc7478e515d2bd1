import { afterAll, beforeAll, describe, it } from 'vitest';
import { ADAPTERS } from '../support/serve.js';
import { GOOD_LOGIN, MAX_BODY, SECRETS, expectRefused, multipart, type HostileCase, type RawRequest } from '@trpc-oauth2/test-kit';
import { serveHostileApp } from './hostile-app.js';

let servers: Awaited<ReturnType<typeof serveHostileApp>>;
beforeAll(async () => {
  servers = await serveHostileApp();
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const post = (contentType: string | null, body: string | Uint8Array, extra: readonly (readonly [string, string])[] = []): RawRequest => ({
  method: 'POST',
  path: '/token',
  headers: [...(contentType === null ? [] : [['Content-Type', contentType] as const]), ...extra],
  body,
});
const json = (body: string | Uint8Array) => post('application/json', body);
const B = 'hostile-boundary';
const form = (parts: Parameters<typeof multipart>[1], contentType = `multipart/form-data; boundary=${B}`) => post(contentType, multipart(B, parts));
const GOOD_PARTS = Object.entries(GOOD_LOGIN) as [string, string][];
const urlencoded = new URLSearchParams(GOOD_LOGIN).toString();
const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

const TOO_LARGE = { status: 413, message: 'PAYLOAD_TOO_LARGE' } as const;
const NOT_FORM_DATA = { status: 400, message: 'Failed to parse body as FormData.' } as const;
const NOT_JSON = { status: 400, message: 'The input is not valid JSON' } as const;
const BAD_LOGIN = { status: 400, message: 'Incorrect username or password' } as const;
const unsupported = (type: string) => ({ status: 415, message: `Unsupported content-type "${type}` });

const CASES: HostileCase[] = [
  // Size.
  { name: 'a JSON body past the limit', request: json(JSON.stringify({ ...GOOD_LOGIN, username: 'a'.repeat(MAX_BODY) })), ...TOO_LARGE },
  { name: 'a multipart body past the limit', request: form([...GOOD_PARTS, ['username', 'a'.repeat(MAX_BODY)]]), ...TOO_LARGE },
  {
    name: 'a chunked body past the limit (no Content-Length)',
    request: Object.assign(json(''), {
      headers: [['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']] as const,
      body: `${(MAX_BODY + 10).toString(16)}\r\n${'x'.repeat(MAX_BODY + 10)}\r\n0\r\n\r\n`,
    }),
    ...TOO_LARGE,
  },
  // Content types.
  { name: 'no content type', request: post(null, JSON.stringify(GOOD_LOGIN)), status: 415, message: 'Missing content-type header' },
  { name: 'text/plain', request: post('text/plain', urlencoded), ...unsupported('text/plain') },
  { name: 'application/xml', request: post('application/xml', `<password>${SECRETS.password}</password>`), ...unsupported('application/xml') },
  // tRPC's adapters read JSON, multipart/form-data and octet streams only (see docs/contract.md#the-password-request-form).
  { name: 'application/x-www-form-urlencoded', request: post('application/x-www-form-urlencoded', urlencoded), ...unsupported('application/x-www-form-urlencoded') },
  {
    name: 'an octet stream where a form is expected',
    request: post('application/octet-stream', urlencoded),
    status: 400,
    message: { contains: 'username: field required' },
  },
  // JSON where a form is expected, and the reverse.
  { name: 'JSON sent as multipart/form-data', request: post(`multipart/form-data; boundary=${B}`, JSON.stringify(GOOD_LOGIN)), ...NOT_FORM_DATA },
  { name: 'a urlencoded form sent as JSON', request: json(`password=${SECRETS.password}&username=alice`), ...NOT_JSON },
  { name: 'a multipart form sent as JSON', request: json(multipart(B, GOOD_PARTS)), ...NOT_JSON },
  { name: 'JSON with an unquoted password', request: json(`{"username":"alice","password": ${SECRETS.password}}`), ...NOT_JSON },
  { name: 'JSON cut short after the secret', request: json(`{"username":"alice","client_secret":"${SECRETS.clientSecret}`), ...NOT_JSON },
  { name: 'JSON with a trailing comma after the secret', request: json(`{"password":"${SECRETS.password}",}`), ...NOT_JSON },
  { name: 'a JSON array', request: json(`["${SECRETS.password}"]`), status: 400, message: { contains: 'expected object, received array' } },
  { name: 'a JSON string', request: json(`"${SECRETS.password}"`), status: 400, message: { contains: 'expected object, received string' } },
  // Invalid bytes.
  { name: 'a raw NUL in a JSON string', request: json(`{"username":"al\u0000ice","password":"${SECRETS.password}"}`), ...NOT_JSON },
  { name: 'invalid UTF-8 in a JSON string', request: json(bytes('{"grant_type":"password","username":"al', [0xff, 0xc0, 0x80], `ice","password":"${SECRETS.password}","client_id":"app","client_secret":"${SECRETS.clientSecret}"}`)), ...BAD_LOGIN },
  { name: 'an escaped NUL in a JSON string', request: json(JSON.stringify({ ...GOOD_LOGIN, username: 'alice\u0000' })), ...BAD_LOGIN },
  { name: 'control characters in a JSON string', request: json(JSON.stringify({ ...GOOD_LOGIN, username: '\u0007\u001b[2Jalice' })), ...BAD_LOGIN },
  {
    name: 'invalid UTF-8 in a multipart value',
    request: post(`multipart/form-data; boundary=${B}`, bytes(...multipart(B, GOOD_PARTS).split('alice').flatMap((part, i) => (i === 0 ? [part, 'al', [0xff, 0xfe], 'ice'] : [part])))),
    ...BAD_LOGIN,
  },
  { name: 'a NUL in a multipart value', request: form(GOOD_PARTS.map(([k, v]) => [k, k === 'username' ? 'ali\u0000ce' : v] as const)), ...BAD_LOGIN },
  // Malformed multipart.
  { name: 'multipart without a boundary', request: form(GOOD_PARTS, 'multipart/form-data'), ...NOT_FORM_DATA },
  { name: 'multipart with another boundary', request: form(GOOD_PARTS, 'multipart/form-data; boundary=other'), ...NOT_FORM_DATA },
  { name: 'multipart cut short', request: post(`multipart/form-data; boundary=${B}`, multipart(B, GOOD_PARTS).slice(0, -20)), ...NOT_FORM_DATA },
  { name: 'multipart without Content-Disposition', request: post(`multipart/form-data; boundary=${B}`, `--${B}\r\n\r\n${SECRETS.password}\r\n--${B}--\r\n`), ...NOT_FORM_DATA },
  { name: 'an empty multipart body', request: post(`multipart/form-data; boundary=${B}`, ''), ...NOT_FORM_DATA },
  {
    name: 'the password as a file',
    request: form([...GOOD_PARTS.filter(([k]) => k !== 'password'), ['password', SECRETS.password, 'password.txt']]),
    status: 400,
    message: { contains: 'password: must be text' },
  },
  // Fields repeated thousands of times (the last value wins).
  {
    name: 'username 5000 times in multipart, the last one wrong',
    request: form([...GOOD_PARTS, ...Array.from({ length: 5000 }, (_, i) => ['username', i === 4999 ? 'mallory' : 'alice'] as const)]),
    ...BAD_LOGIN,
  },
  {
    name: 'grant_type 5000 times in multipart, the last one wrong',
    request: form([...GOOD_PARTS, ...Array.from({ length: 5000 }, (_, i) => ['grant_type', i === 4999 ? 'Password' : 'password'] as const)]),
    status: 400,
    message: { contains: 'grant_type: must be \\"password\\"' },
  },
  {
    name: 'a key 5000 times in JSON, the last one empty',
    request: json(`{${Array.from({ length: 5000 }, () => `"password":"${SECRETS.password}"`).join(',')},"password":"","username":"alice","grant_type":"password"}`),
    status: 400,
    message: { contains: 'password: field required' },
  },
  { name: 'JSON nested 50 000 deep', request: json('['.repeat(50_000) + ']'.repeat(50_000)), status: 400, message: { contains: 'expected object, received array' } },
];

describe('hostile bodies at the token endpoint through the tRPC adapters', () => {
  it.each(ADAPTERS.flatMap((adapter) => CASES.map((c) => ({ adapter, ...c }))))('$adapter: $name → $status', async ({ adapter, ...hostile }) => {
    await expectRefused(servers[adapter], hostile);
  });
});
