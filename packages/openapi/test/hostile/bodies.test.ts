import { afterAll, beforeAll, describe, it } from 'vitest';
import { GOOD_LOGIN, MAX_BODY, SECRETS, expectRefused, multipart, perFace, type HostileCase, type RawRequest, type Refusal } from '@trpc-oauth2/test-kit';
import { FACES, serveHostileFace, type Face, type RunningFace } from './support/serve-faces.js';

const servers = {} as Record<Face, RunningFace>;
beforeAll(async () => {
  for (const face of FACES) servers[face] = await serveHostileFace(face);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const post = (contentType: string | null, body: string | Uint8Array): RawRequest => ({
  method: 'POST',
  path: '/token',
  headers: contentType === null ? [] : [['Content-Type', contentType]],
  body,
});
const json = (body: string | Uint8Array) => post('application/json', body);
const B = 'hostile-boundary';
const MULTIPART = `multipart/form-data; boundary=${B}`;
const form = (parts: Parameters<typeof multipart>[1], contentType = MULTIPART) => post(contentType, multipart(B, parts));
const GOOD_PARTS = Object.entries(GOOD_LOGIN) as [string, string][];
const urlencoded = (extra = '') => post('application/x-www-form-urlencoded', new URLSearchParams(GOOD_LOGIN).toString() + extra);
const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => Buffer.from(p as string)));
/** The same refusal on both faces of a kind. */
const onRest = (refusal: Partial<Refusal>) => ({ 'rest-standalone': refusal, 'rest-fetch': refusal });
const onTrpc = (refusal: Partial<Refusal>) => ({ 'trpc-standalone': refusal, 'trpc-fetch': refusal });

const TOO_LARGE = { status: 413, message: `Request body larger than ${MAX_BODY} bytes` } as const;
const BAD_LOGIN = { status: 400, message: 'Incorrect username or password' } as const;
/** A malformed JSON body: trpc-to-openapi's PARSE_ERROR on REST, tRPC's own message (made safe by oauth2OnError) on tRPC. */
const NOT_JSON = { status: 400, message: 'Failed to parse request body', byFace: onTrpc({ message: 'The input is not valid JSON' }) } as const;
const NOT_MULTIPART = {
  status: 400,
  message: 'Failed to parse the multipart/form-data request body',
  byFace: onTrpc({ message: 'Failed to parse body as FormData.' }),
} as const;
const unsupported = (type: string) => ({ status: 415, message: `Unsupported content-type "${type}` });
/** tRPC's node adapter refuses a large body it reads with its own message (one whose declared length is over the limit, the policy refuses unread). */
const TRPC_TOO_LARGE = { 'trpc-standalone': { message: 'PAYLOAD_TOO_LARGE' } };

const CASES: HostileCase<Face>[] = [
  // Size.
  { name: 'a urlencoded body past the limit', request: urlencoded(`&username=${'a'.repeat(MAX_BODY)}`), ...TOO_LARGE },
  {
    name: 'a JSON body past the limit',
    request: json(JSON.stringify({ ...GOOD_LOGIN, username: 'a'.repeat(MAX_BODY) })),
    ...TOO_LARGE,
  },
  {
    name: 'a multipart body past the limit',
    request: form([...GOOD_PARTS, ['username', 'a'.repeat(MAX_BODY)]]),
    ...TOO_LARGE,
  },
  {
    name: 'a chunked JSON body past the limit',
    request: { ...json(''), headers: [['Content-Type', 'application/json'], ['Transfer-Encoding', 'chunked']], body: `${(MAX_BODY + 10).toString(16)}\r\n${'x'.repeat(MAX_BODY + 10)}\r\n0\r\n\r\n` },
    ...TOO_LARGE,
    byFace: TRPC_TOO_LARGE,
  },
  // Content types.
  { name: 'no content type', request: post(null, JSON.stringify(GOOD_LOGIN)), status: 415, message: 'Missing content-type header' },
  { name: 'text/plain', request: post('text/plain', new URLSearchParams(GOOD_LOGIN).toString()), ...unsupported('text/plain') },
  { name: 'application/xml', request: post('application/xml', `<password>${SECRETS.password}</password>`), ...unsupported('application/xml') },
  {
    name: 'an octet stream',
    request: post('application/octet-stream', new URLSearchParams(GOOD_LOGIN).toString()),
    ...unsupported('application/octet-stream'),
    // tRPC reads an octet stream as a stream input, which the form refuses field by field.
    byFace: onTrpc({ status: 400, message: { contains: 'username: field required' } }),
  },
  // A type that starts as JSON's: trpc-to-openapi reads it as JSON, unchecked (a malformed one was a 500).
  ...['application/jsonx', 'application/json-seq', 'application/json5'].map((type) => ({
    name: `a malformed ${type} body`,
    request: post(type, `{"username":"alice","password": ${SECRETS.password}`),
    ...unsupported(type),
  })),
  // JSON where a form is expected, and the reverse.
  { name: 'JSON sent as urlencoded', request: post('application/x-www-form-urlencoded', JSON.stringify(GOOD_LOGIN)), status: 400, message: { contains: 'grant_type: field required' } },
  { name: 'JSON sent as multipart', request: post(MULTIPART, JSON.stringify(GOOD_LOGIN)), ...NOT_MULTIPART },
  { name: 'a urlencoded form sent as JSON', request: json(`password=${SECRETS.password}&username=alice`), ...NOT_JSON },
  { name: 'a multipart form sent as JSON', request: json(multipart(B, GOOD_PARTS)), ...NOT_JSON },
  { name: 'JSON with an unquoted password', request: json(`{"username":"alice","password": ${SECRETS.password}}`), ...NOT_JSON },
  { name: 'JSON cut short after the secret', request: json(`{"username":"alice","client_secret":"${SECRETS.clientSecret}`), ...NOT_JSON },
  {
    name: 'a JSON array',
    request: json(`["${SECRETS.password}"]`),
    status: 400,
    message: { contains: 'grant_type: field required' },
    byFace: onTrpc({ message: { contains: 'expected object, received array' } }),
  },
  // Invalid bytes.
  { name: 'a raw NUL in a JSON string', request: json(`{"username":"al\u0000ice","password":"${SECRETS.password}"}`), ...NOT_JSON },
  {
    name: 'invalid UTF-8 in a JSON string',
    request: json(bytes('{"grant_type":"password","username":"al', [0xff, 0xc0], `ice","password":"${SECRETS.password}","client_id":"app","client_secret":"${SECRETS.clientSecret}"}`)),
    // JSON is UTF-8 (RFC 8259 §8.1): the policy reads it so on REST. Over tRPC this JSON is tRPC's
    // own to read, which turns the bytes into U+FFFD (docs/contract.md#body-limits).
    status: 400,
    message: 'Failed to parse request body',
    byFace: onTrpc(BAD_LOGIN),
  },
  {
    name: 'invalid UTF-8 bytes in a urlencoded body',
    request: post('application/x-www-form-urlencoded', bytes(new URLSearchParams(GOOD_LOGIN).toString().replace('alice', 'al'), [0xff, 0xfe], '&x=1')),
    status: 400,
    message: 'Failed to parse the application/x-www-form-urlencoded request body',
  },
  {
    name: 'percent-encoded invalid UTF-8 in a urlencoded value',
    request: urlencoded('&username=%FF%FE%C0'),
    status: 400,
    message: 'Failed to parse the application/x-www-form-urlencoded request body',
  },
  { name: 'a percent-encoded lone surrogate in a urlencoded value', request: urlencoded('&username=al%ED%A0%80ice'), status: 400, message: 'Failed to parse the application/x-www-form-urlencoded request body' },
  { name: 'a lone percent sign in a urlencoded value, kept as it is', request: urlencoded('&username=100%&x=%zz'), ...BAD_LOGIN },
  { name: 'an encoded NUL in a urlencoded value', request: urlencoded('&username=ali%00ce'), ...BAD_LOGIN },
  {
    name: 'invalid UTF-8 in a multipart value',
    request: post(MULTIPART, bytes(...multipart(B, GOOD_PARTS).split('alice').flatMap((part, i) => (i === 0 ? [part, 'al', [0xff, 0xfe], 'ice'] : [part])))),
    // Never read as U+FFFD where the policy reads the form (docs/contract.md#body-limits). Over
    // tRPC this multipart is tRPC's own to read (a FormData input), which turns the bytes into U+FFFD.
    status: 400,
    message: 'Failed to parse the multipart/form-data request body',
    byFace: onTrpc(BAD_LOGIN),
  },
  // Malformed multipart.
  { name: 'multipart without a boundary', request: form(GOOD_PARTS, 'multipart/form-data'), ...NOT_MULTIPART },
  { name: 'multipart with another boundary', request: form(GOOD_PARTS, 'multipart/form-data; boundary=other'), ...NOT_MULTIPART },
  { name: 'multipart cut short', request: post(MULTIPART, multipart(B, GOOD_PARTS).slice(0, -20)), ...NOT_MULTIPART },
  { name: 'multipart without Content-Disposition', request: post(MULTIPART, `--${B}\r\n\r\n${SECRETS.password}\r\n--${B}--\r\n`), ...NOT_MULTIPART },
  {
    name: 'the password as a file',
    request: form([...GOOD_PARTS.filter(([k]) => k !== 'password'), ['password', SECRETS.password, 'password.txt']]),
    status: 400,
    message: 'Form field "password" is a file: only text fields are accepted',
    byFace: onTrpc({ message: { contains: 'password: must be text' } }),
  },
  // Fields repeated thousands of times (the last value wins).
  { name: 'username 5000 times in a urlencoded body, the last one wrong', request: urlencoded(`${'&username=alice'.repeat(5000)}&username=mallory`), ...BAD_LOGIN },
  {
    name: 'username 5000 times in multipart, the last one wrong',
    request: form([...GOOD_PARTS, ...Array.from({ length: 5000 }, (_, i) => ['username', i === 4999 ? 'mallory' : 'alice'] as const)]),
    ...BAD_LOGIN,
  },
  {
    name: 'grant_type 5000 times, the last one wrong',
    request: urlencoded(`${'&grant_type=password'.repeat(5000)}&grant_type=Password`),
    status: 400,
    message: { contains: 'grant_type: must be "password"' },
    byFace: onTrpc({ message: { contains: 'grant_type: must be \\"password\\"' } }),
  },
  // A header Node keeps the first of (`req.headers`), where Fetch's `Headers` join every value:
  // every face reads a repeated Content-Type as its values joined by ", ", a type no face reads.
  {
    name: 'Content-Type twice: JSON both times',
    request: { ...json(JSON.stringify(GOOD_LOGIN)), headers: [['Content-Type', 'application/json'], ['Content-Type', 'application/json']] },
    ...unsupported('application/json, application/json'),
  },
  {
    name: 'Content-Type twice: urlencoded, then JSON',
    request: { ...urlencoded(), headers: [['Content-Type', 'application/x-www-form-urlencoded'], ['Content-Type', 'application/json']] },
    ...unsupported('application/x-www-form-urlencoded, application/json'),
  },
  {
    name: 'Content-Type twice: multipart, then text/plain',
    request: { ...form(GOOD_PARTS), headers: [['Content-Type', MULTIPART], ['Content-Type', 'text/plain']] },
    // Its media type is still multipart, whose boundary is then `hostile-boundary, text/plain`.
    ...NOT_MULTIPART,
    byFace: onTrpc({ message: 'Content-Type was not one of "multipart/form-data" or "application/x-www-form-urlencoded".' }),
  },
  {
    name: 'JSON nested 50 000 deep',
    request: json('['.repeat(50_000) + ']'.repeat(50_000)),
    status: 400,
    message: { contains: 'grant_type: field required' },
    byFace: onTrpc({ message: { contains: 'expected object, received array' } }),
  },
];

describe('hostile bodies at the token endpoint on every face of @trpc-oauth2/openapi', () => {
  it.each(perFace(CASES, FACES))('$face: $name → $status', async (row) => {
    await expectRefused(servers[row.face], row);
  });
});
