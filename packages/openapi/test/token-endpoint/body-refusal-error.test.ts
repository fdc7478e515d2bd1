/**
 * docs/contract.md#body-limits ("A token or revocation endpoint": its 413 / 415 / 400 are answered
 * in RFC 6749's shape) and docs/contract.md#token-responses ("the same answer on every face"): a
 * body the policy refuses before the endpoint runs is `invalid_request` on every face, in the §5.2
 * body over REST and on `data.oauth2` over tRPC, with the same status and description; so is a
 * body of a type tRPC's adapters answer 415 before they know the call (`text/plain`, none). An
 * ordinary procedure's refused body keeps `error: null` there: it is no OAuth 2.0 request (and
 * the 415 of a type tRPC does not read stays tRPC's own).
 */
import { oauth2ErrorData, revocationEndpoint, tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipart, rawRequest, type RawRequest, type RawResponse } from '@trpc-oauth2/test-kit';
import { z } from 'zod';
import { FACES, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';

const t = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

/** The handler's limit; the token endpoint has a smaller one of its own, the revocation endpoint none. */
const HANDLER_LIMIT = 2_000;
const TOKEN_LIMIT = 1_000;

let calls = 0;
const router = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: null }), maxBodySize: TOKEN_LIMIT })
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
  echo: t.procedure
    .meta({ openapi: { method: 'POST', path: '/echo' } })
    .input(z.object({ text: z.string().optional() }))
    .output(z.object({ text: z.string().optional() }))
    .mutation(({ input }) => {
      calls += 1;
      return input;
    }),
});

let faces: Record<Face, RunningFace>;
beforeAll(async () => {
  faces = await serveFaces(router, FACES, { maxBodySize: HANDLER_LIMIT });
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

type Procedure = 'token' | 'revoke' | 'echo';
const pathOf = (face: Face, procedure: Procedure) => `${isRest(face) ? '/api' : '/trpc'}/${procedure}`;
const send = (face: Face, procedure: Procedure, request: Omit<RawRequest, 'path'>) =>
  rawRequest(faces[face].origin, { method: 'POST', ...request, path: pathOf(face, procedure) });

const B = 'refusal-boundary';
const big = 'a'.repeat(3 * HANDLER_LIMIT);
const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => Buffer.from(part as string)));
const FIELDS: Record<Exclude<Procedure, 'echo'>, string> = { token: 'grant_type=password&username=alice&password=wonderland', revoke: 'token=rt-1' };

/** Bodies the policy refuses before the endpoint runs, each with the status every face answers. */
const REFUSED: [name: string, status: number, request: (fields: string) => Omit<RawRequest, 'path'>][] = [
  ['a urlencoded body whose Content-Length is over the limit', 413, (fields) => ({
    headers: [['Content-Type', 'application/x-www-form-urlencoded']],
    body: `${fields}&pad=${big}`,
  })],
  ['a chunked urlencoded body past the limit', 413, (fields) => {
    const body = `${fields}&pad=${big}`;
    return {
      headers: [['Content-Type', 'application/x-www-form-urlencoded'], ['Transfer-Encoding', 'chunked']],
      body: `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    };
  }],
  ['a JSON body over the limit', 413, (fields) => ({
    headers: [['Content-Type', 'application/json']],
    body: JSON.stringify({ ...Object.fromEntries(new URLSearchParams(fields)), pad: big }),
  })],
  ['a multipart body over the limit', 413, (fields) => ({
    headers: [['Content-Type', `multipart/form-data; boundary=${B}`]],
    body: multipart(B, [...new URLSearchParams(fields), ['pad', big]]),
  })],
  ['a body with a content coding', 415, (fields) => ({
    headers: [['Content-Type', 'application/x-www-form-urlencoded'], ['Content-Encoding', 'gzip']],
    body: fields,
  })],
  ['a JSON body with a content coding', 415, (fields) => ({
    headers: [['Content-Type', 'application/json'], ['Content-Encoding', 'br']],
    body: JSON.stringify(Object.fromEntries(new URLSearchParams(fields))),
  })],
  ['a urlencoded body that is not UTF-8', 400, (fields) => ({
    headers: [['Content-Type', 'application/x-www-form-urlencoded']],
    body: `${fields}&extra=al%FFice`,
  })],
  ['a multipart body with a file part', 400, (fields) => ({
    headers: [['Content-Type', `multipart/form-data; boundary=${B}`]],
    body: multipart(B, [...new URLSearchParams(fields), ['avatar', 'x', 'a.png']]),
  })],
  ['a multipart body cut short', 400, (fields) => ({
    headers: [['Content-Type', `multipart/form-data; boundary=${B}`]],
    body: multipart(B, [...new URLSearchParams(fields)]).slice(0, -10),
  })],
  ['a JSON body that is not UTF-8', 400, (fields) => ({
    headers: [['Content-Type', 'application/json']],
    body: bytes(JSON.stringify(Object.fromEntries(new URLSearchParams(fields))).slice(0, -2), [0xff], '"}'),
  })],
  ['a JSON body that does not parse', 400, (fields) => ({
    headers: [['Content-Type', 'application/json']],
    body: `${JSON.stringify(Object.fromEntries(new URLSearchParams(fields))).slice(0, -1)},`,
  })],
  // tRPC's adapters answer these before they know the call: the tRPC faces refuse a token call's first.
  ['a text/plain body', 415, (fields) => ({
    headers: [['Content-Type', 'text/plain']],
    body: fields,
  })],
  ['an XML body', 415, (fields) => ({
    headers: [['Content-Type', 'application/xml']],
    body: `<form>${fields}</form>`,
  })],
  // An empty value names no type: "missing" on every face, as REST and tRPC word it.
  ['a body with an empty Content-Type', 415, (fields) => ({
    headers: [['Content-Type', '']],
    body: fields,
  })],
  ['a body without a Content-Type', 415, (fields) => ({
    body: fields,
  })],
  ['an empty body without a Content-Type', 415, () => ({
    body: '',
  })],
];

/** The RFC 6749 §5.2 error an answer carries: the body on REST, `data.oauth2` on tRPC. */
function oauth2Of(face: Face, answer: RawResponse): { code?: string; error: string | null; error_description: string } {
  const body = JSON.parse(answer.body);
  return isRest(face) ? body : body.error.data.oauth2;
}

describe.each(['token', 'revoke'] as const)('a body refused at the %s endpoint', (procedure) => {
  it.each(REFUSED)('%s is invalid_request on every face, with the same status and description', async (_name, status, request) => {
    const before = calls;
    const answers = await Promise.all(FACES.map(async (face) => [face, await send(face, procedure, request(FIELDS[procedure]))] as const));
    const reference = oauth2Of('rest-standalone', answers[0]![1]);
    expect(reference.error).toBe('invalid_request');
    for (const [face, answer] of answers) {
      expect(answer.status, `${face}: ${answer.body.slice(0, 300)}`).toBe(status);
      expect(answer.headers['cache-control'], face).toEqual(['no-store']);
      const oauth2 = oauth2Of(face, answer);
      expect({ face, error: oauth2.error, error_description: oauth2.error_description }).toEqual({ face, ...reference });
      // On tRPC the stable code stays the body's own (ERR_BODY_TOO_LARGE, …), or ERR_INVALID_REQUEST.
      if (!isRest(face)) expect(oauth2.code, face).toMatch(/^ERR_(BODY_TOO_LARGE|MALFORMED_BODY|FILE_FIELD|INVALID_REQUEST)$/);
    }
    expect(calls).toBe(before);
  });
});

describe.each(['trpc-standalone', 'trpc-fetch'] as const)('on the %s face', (face) => {
  it('a body over the limit keeps its stable code at the token endpoint', async () => {
    const answer = await send(face, 'token', REFUSED[0]![2](FIELDS.token));
    expect(JSON.parse(answer.body).error.data.oauth2).toEqual({
      code: 'ERR_BODY_TOO_LARGE',
      error: 'invalid_request',
      error_description: `Request body larger than ${TOKEN_LIMIT} bytes`,
      challenge: null,
      dpopNonce: null,
    });
  });

  it('a non-UTF-8 JSON body keeps tRPC code PARSE_ERROR at the token endpoint', async () => {
    const answer = await send(face, 'token', REFUSED[9]![2](FIELDS.token));
    const { data } = JSON.parse(answer.body).error;
    expect(data.code).toBe('PARSE_ERROR');
    expect(data.oauth2).toEqual({ code: 'ERR_INVALID_REQUEST', error: 'invalid_request', error_description: 'Failed to parse request body', challenge: null, dpopNonce: null });
  });

  it('a batch naming the revocation endpoint beside an ordinary call is invalid_request for each call', async () => {
    const body = JSON.stringify({ 0: { token: big }, 1: { text: 'hi' } });
    const answer = await rawRequest(faces[face].origin, { method: 'POST', path: '/trpc/revoke,echo?batch=1', headers: [['Content-Type', 'application/json']], body });
    expect(answer.status).toBe(413);
    expect(answer.headers['cache-control']).toEqual(['no-store']);
    const results = JSON.parse(answer.body) as { error: { data: { oauth2: unknown } } }[];
    expect(results.map((result) => result.error.data.oauth2)).toEqual([0, 1].map(() => ({
      code: 'ERR_BODY_TOO_LARGE',
      error: 'invalid_request',
      error_description: `Request body larger than ${HANDLER_LIMIT} bytes`,
      challenge: null,
      dpopNonce: null,
    })));
  });

  it('a text/plain body keeps tRPC’s 415, code and message: invalid_request at the token endpoint, no data.oauth2 at an ordinary procedure', async () => {
    const request = { headers: [['Content-Type', 'text/plain']] as const, body: FIELDS.token };
    const token = await send(face, 'token', request);
    expect(token.status).toBe(415);
    const refused = JSON.parse(token.body).error;
    expect({ message: refused.message, code: refused.data.code }).toEqual({ message: 'Unsupported content-type "text/plain', code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(refused.data.oauth2).toEqual({ code: 'ERR_INVALID_REQUEST', error: 'invalid_request', error_description: 'Unsupported content-type text/plain', challenge: null, dpopNonce: null });
    // An ordinary procedure's is tRPC's own, before any call is known.
    const echo = await send(face, 'echo', request);
    expect(echo.status).toBe(415);
    const plain = JSON.parse(echo.body).error;
    expect({ message: plain.message, code: plain.data.code, oauth2: plain.data.oauth2 }).toEqual({
      message: 'Unsupported content-type "text/plain',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      oauth2: null,
    });
  });

  it('a text/plain batch naming the token endpoint is invalid_request for each call; one naming none stays tRPC’s one 415', async () => {
    const before = calls;
    const batch = (path: string) => rawRequest(faces[face].origin, { method: 'POST', path: `/trpc/${path}?batch=1`, headers: [['Content-Type', 'text/plain']], body: 'x' });
    const token = await batch('echo,token');
    expect(token.status).toBe(415);
    expect(token.headers['cache-control']).toEqual(['no-store']);
    const results = JSON.parse(token.body) as { error: { message: string; data: { code: string; oauth2: unknown } } }[];
    expect(results.map(({ error }) => ({ message: error.message, code: error.data.code, oauth2: error.data.oauth2 }))).toEqual([0, 1].map(() => ({
      message: 'Unsupported content-type "text/plain',
      code: 'UNSUPPORTED_MEDIA_TYPE',
      oauth2: { code: 'ERR_INVALID_REQUEST', error: 'invalid_request', error_description: 'Unsupported content-type text/plain', challenge: null, dpopNonce: null },
    })));
    const ordinary = await batch('echo,echo');
    expect(ordinary.status).toBe(415);
    expect(ordinary.headers['cache-control']).toBeUndefined();
    expect(JSON.parse(ordinary.body).error.data).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', oauth2: null });
    expect(calls).toBe(before);
  });

  it('an ordinary procedure’s body over the limit has no RFC error: it is no OAuth 2.0 request', async () => {
    const answer = await send(face, 'echo', { headers: [['Content-Type', 'application/x-www-form-urlencoded']], body: `text=${big}` });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.data.oauth2).toEqual({
      code: 'ERR_BODY_TOO_LARGE',
      error: null,
      error_description: `Request body larger than ${HANDLER_LIMIT} bytes`,
      challenge: null,
      dpopNonce: null,
    });
  });

  it('an ordinary procedure’s body with a content coding has no data.oauth2, as before', async () => {
    const answer = await send(face, 'echo', { headers: [['Content-Type', 'application/json'], ['Content-Encoding', 'gzip']], body: '{}' });
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.body).error.data.oauth2).toBeNull();
  });
});
