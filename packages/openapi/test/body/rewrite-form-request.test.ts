import { getOAuth2Error } from '@trpc-oauth2/core';
import { TRPCError } from '@trpc/server';
import { refusal } from '../support/refusal.js';
import { describe, expect, it } from 'vitest';
import { MULTIPART, URLENCODED } from '../../src/index.js';
import { refuseBodyErrors, rewriteFormRequest } from '../../src/adapters/fetch.js';

const URL_ = 'http://127.0.0.1/api/token?x=1';
const post = (body: BodyInit, headers: Record<string, string> = {}) => new Request(URL_, { method: 'POST', body, headers });
const form = (entries: [string, string | Blob][]) => {
  const data = new FormData();
  for (const [name, value] of entries) data.append(name, value);
  return data;
};

describe('rewriteFormRequest', () => {
  it.each([
    { name: 'fields', body: 'username=alice&password=s3cret', json: { username: 'alice', password: 's3cret' } },
    { name: 'the last of repeated values wins', body: 'username=mallory&username=alice&password=x', json: { username: 'alice', password: 'x' } },
    { name: 'empty values are absent', body: 'username=alice&client_id=&scope=', json: { username: 'alice' } },
    { name: 'an empty last value makes the field absent', body: 'client_id=app&client_id=&username=a', json: { username: 'a' } },
    { name: 'percent and plus decoding', body: 'scope=me+items%20admin&password=%C3%A9%26%3D', json: { scope: 'me items admin', password: 'é&=' } },
    { name: 'an empty body', body: '', json: {} },
    { name: '__proto__ is an ordinary field', body: '__proto__=x&username=a', text: '{"__proto__":"x","username":"a"}' },
  ])('urlencoded: $name', async ({ body, json, text }) => {
    const rewritten = await rewriteFormRequest(post(body, { 'content-type': URLENCODED }));
    expect(rewritten.headers.get('content-type')).toBe('application/json');
    if (text !== undefined) expect(await rewritten.text()).toBe(text);
    else expect(await rewritten.json()).toEqual(json);
    expect(refusal(rewritten)).toBeUndefined();
  });

  it('multipart: text fields, with the same rules', async () => {
    const body = form([['username', 'mallory'], ['username', 'alice'], ['password', 'x'], ['client_id', '']]);
    const rewritten = await rewriteFormRequest(post(body));
    expect(await rewritten.json()).toEqual({ username: 'alice', password: 'x' });
  });

  it('keeps the URL, method, signal and every other header', async () => {
    const controller = new AbortController();
    const original = new Request(URL_, {
      method: 'PUT',
      body: 'a=b',
      headers: { 'content-type': `${URLENCODED}; charset=UTF-8`, authorization: 'Bearer abc', 'x-trace': '7' },
      signal: controller.signal,
    });
    const rewritten = await rewriteFormRequest(original);
    expect([rewritten.url, rewritten.method]).toEqual([URL_, 'PUT']);
    expect(Object.fromEntries(rewritten.headers)).toEqual({ authorization: 'Bearer abc', 'content-type': 'application/json', 'x-trace': '7' });
    controller.abort();
    expect(rewritten.signal.aborted).toBe(true);
  });

  it.each([
    { name: 'JSON', request: () => post('{"a":1}', { 'content-type': 'application/json' }) },
    { name: 'text', request: () => post('a=b', { 'content-type': 'text/plain' }) },
    { name: 'no content type', request: () => post(new Uint8Array([1])) },
    { name: 'GET', request: () => new Request(URL_, { headers: { 'content-type': URLENCODED } }) },
    { name: 'a media type left out of `mediaTypes`', request: () => post(form([['a', 'b']])), options: { mediaTypes: [URLENCODED] as const } },
  ])('returns $name as it is', async ({ request, options }) => {
    const original = request();
    expect(await rewriteFormRequest(original, options)).toBe(original);
  });

  it('serializes the fields with `serialize`', async () => {
    const rewritten = await rewriteFormRequest(post('a=b', { 'content-type': URLENCODED }), { serialize: (fields) => ({ json: fields }) });
    expect(await rewritten.json()).toEqual({ json: { a: 'b' } });
  });

  it.each([
    { name: 'over the limit', request: () => post('a=' + 'x'.repeat(9), { 'content-type': URLENCODED }), status: 413, code: 'ERR_BODY_TOO_LARGE', message: 'Request body larger than 10 bytes', maxBodySize: 10 },
    { name: 'not UTF-8', request: () => post(new Uint8Array([0x61, 0x3d, 0xff]), { 'content-type': URLENCODED }), status: 400, code: 'ERR_MALFORMED_BODY', message: 'Failed to parse the application/x-www-form-urlencoded request body' },
    { name: 'a broken multipart body', request: () => post('--x\r\nbroken', { 'content-type': `${MULTIPART}; boundary=x` }), status: 400, code: 'ERR_MALFORMED_BODY', message: 'Failed to parse the multipart/form-data request body' },
    { name: 'a file part', request: () => post(form([['avatar', new Blob(['x'])]])), status: 400, code: 'ERR_FILE_FIELD', message: 'Form field "avatar" is a file: only text fields are accepted' },
  ])('marks a body $name with its error ($status $code)', async ({ request, status, code, message, maxBodySize }) => {
    const rewritten = await rewriteFormRequest(request(), { maxBodySize });
    expect(await rewritten.json()).toEqual({});
    const error = refusal(rewritten);
    expect(error).toBeInstanceOf(TRPCError);
    expect(error?.message).toBe(message);
    expect(getOAuth2Error(error)).toMatchObject({ status, code });
  });

  it('refuses from Content-Length without reading the body', async () => {
    const request = post('a=b', { 'content-type': URLENCODED, 'content-length': '1000' });
    const rewritten = await rewriteFormRequest(request, { maxBodySize: 100 });
    expect(getOAuth2Error(refusal(rewritten))?.code).toBe('ERR_BODY_TOO_LARGE');
    expect(request.bodyUsed).toBe(false);
  });

  it('reads a body within the limit', async () => {
    const request = post('a=b', { 'content-type': URLENCODED });
    await rewriteFormRequest(request, { maxBodySize: 100 });
    expect(request.bodyUsed).toBe(true);
  });
});

describe('refuseBodyErrors', () => {
  it('calls createContext for a request that was not refused', async () => {
    const request = await rewriteFormRequest(post('a=b', { 'content-type': URLENCODED }));
    expect(refuseBodyErrors(({ req }: { req: Request }) => ({ url: req.url }))({ req: request })).toEqual({ url: URL_ });
  });

  it('gives the request alone as the context without createContext', () => {
    const request = new Request(URL_);
    const context = refuseBodyErrors()({ req: request });
    expect(context).toEqual({ req: request });
    expect(context.req).toBe(request);
  });
});
