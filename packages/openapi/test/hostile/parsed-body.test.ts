/**
 * docs/contract.md#body-limits ("A body a middleware read first"): the Node faces mounted by
 * Express behind its body parsers, as applications mount them (`app.use(express.json())`,
 * `app.use(express.urlencoded())` for the whole app), over loopback. A parser that skips a body
 * leaves `req.body` undefined and the stream unread (Express 5): the body is the face's to read,
 * by the policy, as if no parser were there. A urlencoded form a parser read into an object of
 * text fields is read as that form, its repeated fields still repeated. Bytes or text a parser
 * left (`express.raw()`, `express.text()`) are read as the body they were, under its type. Every
 * body a parser read is held to the face's `maxBodySize` (an endpoint's own, for its calls), by
 * what is handed on or by the `Content-Length` it was sent with, whatever the parser's own limit.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { oauth2ErrorData, tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import express from 'express';
import fc from 'fast-check';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { createOAuth2HTTPHandler, createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';

const t = initTRPC
  .context<{ req: unknown }>()
  .meta<OpenApiMeta>()
  .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });

const LIMIT = 2_000;
/** A token endpoint's own limit, below the handler's. */
const SMALL = 500;
const router = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: null }) })
    .grant('password', ({ form }) => ({ access_token: `at-${form.username}`, token_type: 'Bearer' }))
    .build(),
  smallToken: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/small-token' } }), { authenticateClient: () => ({ id: null }), maxBodySize: SMALL })
    .grant('password', ({ form }) => ({ access_token: `at-${form.username}`, token_type: 'Bearer' }))
    .build(),
  hello: t.procedure
    .meta({ openapi: { method: 'GET', path: '/hello' } })
    .input(z.void())
    .output(z.string())
    .query(() => 'hello'),
  echo: t.procedure
    .meta({ openapi: { method: 'POST', path: '/echo' } })
    .input(z.object({ text: z.string() }))
    .output(z.object({ text: z.string() }))
    .mutation(({ input }) => input),
});

/** The body parsers an application puts before the handler, as Express 5 ships them. */
const PARSERS = {
  none: [],
  json: [express.json()],
  urlencoded: [express.urlencoded({ extended: false })],
  both: [express.json(), express.urlencoded({ extended: false })],
  text: [express.text()],
  extended: [express.urlencoded({ extended: true })],
  raw: [express.raw({ type: ['application/x-www-form-urlencoded', 'application/json'] })],
  textForm: [express.text({ type: 'application/x-www-form-urlencoded' })],
} as const;
type Parsers = keyof typeof PARSERS;
type Face = 'rest' | 'trpc';

const servers: Server[] = [];
const origins = new Map<string, string>();
beforeAll(async () => {
  for (const parsers of Object.keys(PARSERS) as Parsers[]) {
    const app = express();
    for (const parser of PARSERS[parsers]) app.use(parser);
    const options = { router, maxBodySize: LIMIT, createContext: ({ req }: { req: unknown }) => ({ req }) };
    app.use('/api', createOAuth2OpenApiHttpHandler(options) as never);
    const trpc = createOAuth2HTTPHandler(options);
    app.use('/trpc', (req: IncomingMessage, res: ServerResponse) => trpc(req, res));
    const server = createServer(app);
    server.listen(0, '127.0.0.1');
    servers.push(server);
    origins.set(parsers, `http://127.0.0.1:${await listening(server)}`);
  }
});
afterAll(() => Promise.all(servers.map((server) => closing(server))));

const post = async (
  parsers: Parsers,
  face: Face,
  procedure: 'token' | 'smallToken' | 'echo',
  init: { type: string; body: string | Uint8Array<ArrayBuffer>; encoding?: string; accept?: string },
) => {
  const headers: Record<string, string> = { 'content-type': init.type };
  if (init.encoding !== undefined) headers['content-encoding'] = init.encoding;
  if (init.accept !== undefined) headers['trpc-accept'] = init.accept;
  const path = face === 'rest' && procedure === 'smallToken' ? 'small-token' : procedure;
  const response = await fetch(`${origins.get(parsers)}/${face === 'rest' ? 'api' : 'trpc'}/${path}`, { method: 'POST', headers, body: init.body });
  const text = await response.text();
  const body = JSON.parse(text) as any;
  const error = face === 'rest' ? (body.error ?? body.data?.oauth2?.code ?? body.code) : (body.error?.data?.oauth2?.error ?? body.error?.data?.oauth2?.code ?? body.error?.message);
  return { status: response.status, data: face === 'rest' ? body : body.result?.data, error };
};

const FORM = 'application/x-www-form-urlencoded';
/** `text` gzipped, as a body `fetch` sends. */
const gzip = (text: string) => new Uint8Array(gzipSync(text));
const FACES: Face[] = ['rest', 'trpc'];
const ALL_PARSERS = Object.keys(PARSERS) as Parsers[];
/** The arrangements in which a parser reads a body of each type (and so decodes its content coding). */
const READ_BY_PARSER: Record<'form' | 'json', readonly Parsers[]> = {
  form: ['urlencoded', 'both', 'extended', 'raw', 'textForm'],
  json: ['json', 'both', 'raw'],
};
/** A password grant of exactly `size` bytes (or its smallest), as a form or as JSON. */
const passwordGrant = (type: 'form' | 'json', size: number) => {
  if (type === 'form') {
    const head = 'grant_type=password&username=alice&password=';
    return `${head}${'w'.repeat(Math.max(0, size - head.length))}`;
  }
  const head = '{"grant_type":"password","username":"alice","password":"';
  return `${head}${'w'.repeat(Math.max(0, size - head.length - 2))}"}`;
};
/** An echo call's JSON of exactly `size` bytes. */
const echoJson = (size: number) => `{"text":"${'w'.repeat(size - 11)}"}`;

describe.each(FACES)('the %s face behind Express body parsers', (face) => {
  it.each(ALL_PARSERS)('answers a token request sent as a form behind %s as without a parser', async (parsers) => {
    const answer = await post(parsers, face, 'token', { type: FORM, body: 'grant_type=password&username=alice&password=wonderland' });
    expect(answer).toMatchObject({ status: 200, data: { access_token: 'at-alice', token_type: 'Bearer' } });
  });

  it.each(ALL_PARSERS)('reads an ordinary form behind %s as its fields', async (parsers) => {
    const answer = await post(parsers, face, 'echo', { type: FORM, body: 'text=caf%C3%A9+au+lait' });
    expect(answer).toMatchObject({ status: 200, data: { text: 'café au lait' } });
  });

  it.each(ALL_PARSERS)('refuses a token field sent twice behind %s (RFC 6749 §3.2)', async (parsers) => {
    const answer = await post(parsers, face, 'token', { type: FORM, body: 'grant_type=password&username=alice&username=bob&password=wonderland' });
    expect(answer).toMatchObject({ status: 400, error: 'invalid_request' });
  });

  it('refuses with 400 a form a parser read into nested objects, whose field names are gone', async () => {
    const answer = await post('extended', face, 'echo', { type: FORM, body: 'text=hi&a[b]=c' });
    expect(answer).toMatchObject({ status: 400, error: 'ERR_MALFORMED_BODY' });
  });

  it('reads a JSON body a parser decoded from gzip as it read it, as tRPC takes it', async () => {
    const answer = await post('json', face, 'echo', { type: 'application/json', body: gzip('{"text":"zipped"}'), encoding: 'gzip' });
    expect(answer).toMatchObject({ status: 200, data: { text: 'zipped' } });
  });

  it('holds the limit, the content-coding refusal and the form reading behind every arrangement of parsers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ALL_PARSERS),
        fc.constantFrom('form' as const, 'json' as const),
        // The handler's limit, or an endpoint's own below it.
        fc.constantFrom({ procedure: 'token' as const, limit: LIMIT }, { procedure: 'smallToken' as const, limit: SMALL }),
        fc.integer({ min: -40, max: 40 }),
        fc.boolean(),
        async (parsers, type, { procedure, limit }, offset, zipped) => {
          const body = passwordGrant(type, limit + offset);
          const answer = await post(parsers, face, procedure, {
            type: type === 'form' ? FORM : 'application/json',
            body: zipped ? gzip(body) : body,
            encoding: zipped ? 'gzip' : undefined,
          });
          // A parser that reads the type decodes the coding; a body no parser read is refused unread.
          if (zipped && !READ_BY_PARSER[type].includes(parsers)) expect(answer.status).toBe(415);
          // Whoever read it, and whatever the parser's own limit (100 kB), the handler's holds.
          else if (body.length > limit) expect(answer).toMatchObject({ status: 413, error: 'invalid_request' });
          else expect(answer).toMatchObject({ status: 200, data: { access_token: 'at-alice' } });
        },
      ),
      { numRuns: 80 },
    );
  });

  it.each(READ_BY_PARSER.json)('holds a JSON body %s read to maxBodySize, not to the parser\'s own limit', async (parsers) => {
    expect(await post(parsers, face, 'echo', { type: 'application/json', body: echoJson(LIMIT) })).toMatchObject({ status: 200, data: { text: 'w'.repeat(LIMIT - 11) } });
    expect(await post(parsers, face, 'echo', { type: 'application/json', body: echoJson(LIMIT + 1) })).toMatchObject({ status: 413, error: 'ERR_BODY_TOO_LARGE' });
  });

  it('holds a JSON body a parser read to the Content-Length it was sent with, as a body read unread', async () => {
    // Parsed and written again, the padding is gone: the body as sent was over the limit.
    const padded = `{"text":"hi"}${' '.repeat(LIMIT)}`;
    expect(await post('json', face, 'echo', { type: 'application/json', body: padded })).toMatchObject({ status: 413, error: 'ERR_BODY_TOO_LARGE' });
    expect(await post('none', face, 'echo', { type: 'application/json', body: padded })).toMatchObject({ status: 413 });
  });

  it('answers a JSON body a parser read over maxBodySize whole, when the call asked for a stream', async () => {
    const answer = await post('json', face, 'echo', { type: 'application/json', body: echoJson(LIMIT + 1), accept: 'application/jsonl' });
    expect(answer).toMatchObject({ status: 413, error: 'ERR_BODY_TOO_LARGE' });
  });

  it('leaves a GET\'s body a parser read unread, however large, as without a parser', async () => {
    for (const parsers of ['json', 'none'] as const) {
      const url = new URL(`${origins.get(parsers)}/${face === 'rest' ? 'api' : 'trpc'}/hello`);
      const body = echoJson(LIMIT * 2);
      const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
        const sent = request(url, { method: 'GET', headers: { 'content-type': 'application/json', 'content-length': String(body.length) } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, text }));
        });
        sent.on('error', reject);
        sent.end(body);
      });
      expect(answer.status, parsers).toBe(200);
      expect(answer.text, parsers).toContain('hello');
    }
  });

  it('holds a JSON body a parser inflated from gzip to maxBodySize by its JSON text', async () => {
    const body = echoJson(LIMIT * 2);
    expect(gzip(body).length).toBeLessThan(LIMIT);
    expect(await post('json', face, 'echo', { type: 'application/json', body: gzip(body), encoding: 'gzip' })).toMatchObject({ status: 413, error: 'ERR_BODY_TOO_LARGE' });
  });

  it.each(READ_BY_PARSER.json)('holds a token call\'s JSON %s read to its endpoint\'s own limit', async (parsers) => {
    const within = await post(parsers, face, 'smallToken', { type: 'application/json', body: passwordGrant('json', SMALL) });
    expect(within).toMatchObject({ status: 200, data: { access_token: 'at-alice' } });
    const over = await post(parsers, face, 'smallToken', { type: 'application/json', body: passwordGrant('json', SMALL + 1) });
    expect(over).toMatchObject({ status: 413, error: 'invalid_request' });
  });

  it('reads a JSON body a raw parser read as the bytes it is', async () => {
    const answer = await post('raw', face, 'echo', { type: 'application/json', body: new TextEncoder().encode('{"text":"café"}') });
    expect(answer).toMatchObject({ status: 200, data: { text: 'café' } });
  });

  it.each(['none', 'raw'] as const)('refuses behind %s a form whose bytes are not UTF-8', async (parsers) => {
    const answer = await post(parsers, face, 'echo', { type: FORM, body: new Uint8Array([...new TextEncoder().encode('text=al'), 0xff, ...new TextEncoder().encode('ice')]) });
    expect(answer).toMatchObject({ status: 400, error: 'ERR_MALFORMED_BODY' });
  });

  it.each(ALL_PARSERS)('refuses behind %s a form declared in another charset (415)', async (parsers) => {
    const answer = await post(parsers, face, 'token', { type: `${FORM}; charset=iso-8859-1`, body: 'grant_type=password&username=alice&password=wonderland' });
    expect(answer.status).toBe(415);
  });
});
