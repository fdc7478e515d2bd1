import { gzipSync } from 'node:zlib';
import { getOAuth2Error } from '@trpc-oauth2/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_SIZE, MULTIPART, URLENCODED } from '../../src/index.js';
import { FACES, REST_FACES, call, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { FORM_CASES, isRefusal, toFormData, toObject, toSearchParams, type FormCase } from '@trpc-oauth2/test-kit';
import { httpRouter } from '../support/http-router.js';

let servers: Record<Face, RunningFace>;
beforeAll(async () => {
  servers = await serveFaces(httpRouter, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const ENCODINGS = [
  { encoding: 'urlencoded', init: (fields: FormCase['fields']) => ({ headers: { 'content-type': URLENCODED }, body: toSearchParams(fields).toString() }) },
  { encoding: 'multipart', init: (fields: FormCase['fields']) => ({ body: toFormData(fields) }) },
  { encoding: 'JSON', init: (fields: FormCase['fields']) => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(toObject(fields)) }) },
] as const;
const VARIANTS = [
  { variant: 'permissive', procedure: 'token' },
  { variant: 'strict', procedure: 'tokenStrict' },
] as const;

// multipart/form-data serialises every line break in a value as CRLF (HTML's form rules).
const asSent = (encoding: string, form: Record<string, unknown>) =>
  encoding === 'multipart' && typeof form.scope === 'string' ? { ...form, scope: form.scope.replace(/\r?\n/g, '\r\n') } : form;

const lastError = (server: RunningFace) => server.errors[server.errors.length - 1];

describe('the password request form on every face, in every body encoding', () => {
  const cases = FACES.flatMap((face) =>
    ENCODINGS.flatMap(({ encoding, init }) =>
      VARIANTS.flatMap(({ variant, procedure }) => FORM_CASES.map((c) => ({ face, encoding, init, variant, procedure, ...c, expected: c[variant] }))),
    ),
  );

  it.each(cases)('$face, $encoding, $variant: $name', async ({ face, encoding, init, procedure, fields, expected }) => {
    const result = await call(servers[face], procedure, { method: 'POST', ...init(fields) });
    if (isRefusal(expected)) {
      expect(result.status).toBe(400);
      expect(result.error?.code).toBe('BAD_REQUEST');
      for (const field of expected.errors) expect(result.text).toContain(`${field}: `);
      expect(result.text).not.toContain('s3cret');
    } else {
      expect(result.status).toBe(200);
      expect(result.data).toEqual(asSent(encoding, expected));
    }
  });
});

describe('body limit', () => {
  // Bodies of exactly `size` bytes whose username is the padding.
  const usernameOf = (size: number, overhead: number) => 'z'.repeat(size - overhead);
  const urlencodedOf = (size: number) => `username=${usernameOf(size, 'username=&password=x'.length)}&password=x`;
  const multipartOf = (size: number) => {
    const head = `--b\r\nContent-Disposition: form-data; name="password"\r\n\r\nx\r\n--b\r\nContent-Disposition: form-data; name="username"\r\n\r\n`;
    const tail = '\r\n--b--\r\n';
    return head + usernameOf(size, head.length + tail.length) + tail;
  };
  const jsonOf = (size: number) => JSON.stringify({ username: usernameOf(size, '{"username":"","password":"x"}'.length), password: 'x' });
  const urlencoded = { encoding: 'urlencoded', contentType: URLENCODED, of: urlencodedOf };
  const multipart = { encoding: 'multipart', contentType: `${MULTIPART}; boundary=b`, of: multipartOf };
  const json = { encoding: 'JSON', contentType: 'application/json', of: jsonOf };
  const bodies = [
    ...FACES.map((face) => ({ face, ...urlencoded })),
    ...REST_FACES.map((face) => ({ face, ...multipart })),
    // JSON over REST is read by the policy too: the default limit holds without maxBodySize.
    ...REST_FACES.map((face) => ({ face, ...json })),
    // tRPC's fetch adapter has no limit of its own: the default holds there for every body, and
    // multipart still reaches tRPC as FormData.
    { face: 'trpc-fetch', ...multipart },
    { face: 'trpc-fetch', ...json },
  ] as const;
  const max = DEFAULT_MAX_BODY_SIZE;

  it.each(bodies)('$face, $encoding: a body of exactly the limit is read', async ({ face, contentType, of }) => {
    const body = of(max);
    expect(new TextEncoder().encode(body).length).toBe(max);
    const result = await call(servers[face], 'token', { method: 'POST', headers: { 'content-type': contentType }, body });
    expect(result.status).toBe(200);
    expect(result.data).toMatchObject({ username: body.match(/z+/)![0], password: 'x' });
  });

  it.each(bodies)('$face, $encoding: one byte more is 413, ERR_BODY_TOO_LARGE', async ({ face, contentType, of }) => {
    const result = await call(servers[face], 'token', { method: 'POST', headers: { 'content-type': contentType }, body: of(max + 1) });
    expect(result.status).toBe(413);
    expect(result.error).toEqual({ message: `Request body larger than ${max} bytes`, code: 'PAYLOAD_TOO_LARGE' });
    expect(getOAuth2Error(lastError(servers[face]))?.code).toBe('ERR_BODY_TOO_LARGE');
  });

  it.each(bodies)('$face, $encoding: a streamed body without Content-Length is cut at the limit too', async ({ face, contentType, of }) => {
    const bytes = new TextEncoder().encode(of(max + 1));
    const body = new ReadableStream({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 16_384) controller.enqueue(bytes.subarray(offset, offset + 16_384));
        controller.close();
      },
    });
    const result = await call(servers[face], 'token', { method: 'POST', headers: { 'content-type': contentType }, body, duplex: 'half' } as RequestInit);
    expect(result.status).toBe(413);
    expect(result.error?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(getOAuth2Error(lastError(servers[face]))?.code).toBe('ERR_BODY_TOO_LARGE');
  });

  it.each([...REST_FACES, 'trpc-fetch'] as const)('%s: maxBodySize sets the limit of urlencoded, multipart and JSON bodies alike', async (face) => {
    const limit = 256;
    const small = (await serveFaces(httpRouter, [face], { maxBodySize: limit }))[face];
    const statuses: Record<string, number[]> = {};
    try {
      for (const { encoding, contentType, of } of [urlencoded, multipart, json]) {
        for (const size of [limit, limit + 1]) {
          const result = await call(small, 'token', { method: 'POST', headers: { 'content-type': contentType }, body: of(size) });
          (statuses[encoding] ??= []).push(result.status);
        }
      }
      expect(statuses).toEqual({ urlencoded: [200, 413], multipart: [200, 413], JSON: [200, 413] });
      expect(getOAuth2Error(lastError(small))).toMatchObject({ code: 'ERR_BODY_TOO_LARGE', message: `Request body larger than ${limit} bytes` });
    } finally {
      await small.close();
    }
  });
});

describe('bodies that cannot be read are a 4xx, never a 5xx', () => {
  const fileForm = () => {
    const data = toFormData([['password', 'x']]);
    data.append('username', new Blob(['alice']), 'alice.txt');
    return data;
  };
  const invalidUtf8 = new Uint8Array([...new TextEncoder().encode('username=a&password='), 0xff, 0xfe]);
  const bodies: { name: string; init: () => RequestInit; rest: [number, string, string?]; trpc: [number, string, string?] }[] = [
    { name: 'text/plain', init: () => ({ headers: { 'content-type': 'text/plain' }, body: 'username=a&password=b' }), rest: [415, 'UNSUPPORTED_MEDIA_TYPE'], trpc: [415, 'UNSUPPORTED_MEDIA_TYPE'] },
    { name: 'no content type', init: () => ({ body: new TextEncoder().encode('username=a&password=b') }), rest: [415, 'UNSUPPORTED_MEDIA_TYPE'], trpc: [415, 'UNSUPPORTED_MEDIA_TYPE'] },
    { name: 'application/xml', init: () => ({ headers: { 'content-type': 'application/xml' }, body: '<a/>' }), rest: [415, 'UNSUPPORTED_MEDIA_TYPE'], trpc: [415, 'UNSUPPORTED_MEDIA_TYPE'] },
    { name: 'urlencoded, not UTF-8', init: () => ({ headers: { 'content-type': URLENCODED }, body: invalidUtf8 }), rest: [400, 'BAD_REQUEST', 'ERR_MALFORMED_BODY'], trpc: [400, 'BAD_REQUEST', 'ERR_MALFORMED_BODY'] },
    { name: 'multipart, broken', init: () => ({ headers: { 'content-type': `${MULTIPART}; boundary=x` }, body: '--x\r\nbroken' }), rest: [400, 'BAD_REQUEST', 'ERR_MALFORMED_BODY'], trpc: [400, 'BAD_REQUEST'] },
    { name: 'multipart, no boundary', init: () => ({ headers: { 'content-type': MULTIPART }, body: 'username=a' }), rest: [400, 'BAD_REQUEST', 'ERR_MALFORMED_BODY'], trpc: [400, 'BAD_REQUEST'] },
    { name: 'multipart, a file part', init: () => ({ body: fileForm() }), rest: [400, 'BAD_REQUEST', 'ERR_FILE_FIELD'], trpc: [400, 'BAD_REQUEST'] },
    { name: 'JSON, malformed', init: () => ({ headers: { 'content-type': 'application/json' }, body: '{"username": ' }), rest: [400, 'PARSE_ERROR'], trpc: [400, 'BAD_REQUEST'] },
    { name: 'JSON, a string', init: () => ({ headers: { 'content-type': 'application/json' }, body: '"username=a"' }), rest: [400, 'BAD_REQUEST'], trpc: [400, 'BAD_REQUEST'] },
    // RFC 9110 §15.5.16: no face decodes a content coding, tRPC's own JSON and multipart included.
    { name: 'JSON, gzip', init: () => ({ headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync('{"username":"a","password":"b"}') }), rest: [415, 'UNSUPPORTED_MEDIA_TYPE'], trpc: [415, 'UNSUPPORTED_MEDIA_TYPE'] },
    { name: 'urlencoded, labelled br', init: () => ({ headers: { 'content-type': URLENCODED, 'content-encoding': 'br' }, body: 'username=a&password=b' }), rest: [415, 'UNSUPPORTED_MEDIA_TYPE'], trpc: [415, 'UNSUPPORTED_MEDIA_TYPE'] },
    { name: 'multipart, labelled gzip', init: () => ({ headers: { 'content-encoding': 'x-gzip' }, body: toFormData([['username', 'a'], ['password', 'b']]) }), rest: [415, 'UNSUPPORTED_MEDIA_TYPE'], trpc: [415, 'UNSUPPORTED_MEDIA_TYPE'] },
    { name: 'text/plain, labelled gzip', init: () => ({ headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, body: 'a' }), rest: [415, 'UNSUPPORTED_MEDIA_TYPE'], trpc: [415, 'UNSUPPORTED_MEDIA_TYPE'] },
  ];
  const cases = FACES.flatMap((face) => bodies.map((body) => ({ face, ...body, expected: isRest(face) ? body.rest : body.trpc })));

  it.each(cases)('$face, $name → $expected', async ({ face, init, expected: [status, code, stable] }) => {
    const result = await call(servers[face], 'token', { method: 'POST', ...init() });
    expect(result.status).toBe(status);
    expect(result.error?.code).toBe(code);
    if (stable !== undefined) expect(getOAuth2Error(lastError(servers[face]))?.code).toBe(stable);
  });
});

describe('everything else goes through untouched', () => {
  it.each(FACES)('%s: JSON input keeps working', async (face) => {
    const result = await call(servers[face], 'sum', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: 2, b: 3 }) });
    expect(result).toMatchObject({ status: 200, data: 5 });
  });

  it.each(REST_FACES)('%s: an empty JSON body is a 400 for a procedure with input, and no matter for one without', async (face) => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json' } };
    expect((await call(servers[face], 'sum', init)).status).toBe(400);
    expect(await call(servers[face], 'ping', init)).toMatchObject({ status: 200, data: 'pong' });
  });

  it.each(REST_FACES)('%s: malformed JSON is a 400 PARSE_ERROR on both REST handlers, input or not', async (face) => {
    for (const procedure of ['sum', 'ping']) {
      const result = await call(servers[face], procedure, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
      expect(result.status).toBe(400);
      expect(result.error).toEqual({ message: 'Failed to parse request body', code: 'PARSE_ERROR' });
    }
  });

  it.each(REST_FACES)('%s: a GET route reads its query string', async (face) => {
    const response = await fetch(`${servers[face].origin}/api/search?q=a%20b`, { headers: { 'content-type': URLENCODED } });
    expect(response.status).toBe(200);
    expect(await response.json()).toBe('a b');
  });

  it.each(FACES)('%s: the Authorization header survives the rewrite of a form', async (face) => {
    const result = await call(servers[face], 'token', {
      method: 'POST',
      headers: { 'content-type': URLENCODED, authorization: 'Basic YXBwOnNlY3JldA==' },
      body: 'username=alice&password=s3cret',
    });
    expect(result.status).toBe(200);
  });

  it.each(REST_FACES)('%s: an unknown route is still 404', async (face) => {
    const response = await fetch(`${servers[face].origin}/api/nowhere`, { method: 'POST', headers: { 'content-type': URLENCODED }, body: 'a=b' });
    expect(response.status).toBe(404);
  });
});
