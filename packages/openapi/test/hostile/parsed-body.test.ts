/**
 * docs/contract.md#body-limits ("A body a middleware read first"): the Node faces mounted by
 * Express behind its body parsers, as applications mount them (`app.use(express.json())`,
 * `app.use(express.urlencoded())` for the whole app), over loopback. A parser that skips a body
 * leaves `req.body` undefined and the stream unread (Express 5): the body is the face's to read,
 * by the policy, as if no parser were there. A urlencoded form a parser read into an object of
 * text fields is read as that form, its repeated fields still repeated.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
const router = t.router({
  token: tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }), { authenticateClient: () => ({ id: null }) })
    .grant('password', ({ form }) => ({ access_token: `at-${form.username}`, token_type: 'Bearer' }))
    .build(),
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

const post = async (parsers: Parsers, face: Face, procedure: 'token' | 'echo', init: { type: string; body: string | Uint8Array<ArrayBuffer>; encoding?: string }) => {
  const headers: Record<string, string> = { 'content-type': init.type };
  if (init.encoding !== undefined) headers['content-encoding'] = init.encoding;
  const response = await fetch(`${origins.get(parsers)}/${face === 'rest' ? 'api' : 'trpc'}/${procedure}`, { method: 'POST', headers, body: init.body });
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
      fc.asyncProperty(fc.constantFrom(...ALL_PARSERS), fc.integer({ min: LIMIT - 40, max: LIMIT + 40 }), fc.boolean(), async (parsers, size, zipped) => {
        const head = 'grant_type=password&username=alice&password=';
        const body = `${head}${'w'.repeat(Math.max(0, size - head.length))}`;
        const answer = await post(parsers, face, 'token', { type: FORM, body: zipped ? gzip(body) : body, encoding: zipped ? 'gzip' : undefined });
        // A parser that reads forms decodes the coding; a body no parser read is refused unread.
        const readByParser = parsers === 'urlencoded' || parsers === 'both' || parsers === 'extended';
        if (zipped && !readByParser) expect(answer.status).toBe(415);
        else if (body.length > LIMIT) expect(answer.status).toBe(413);
        else expect(answer).toMatchObject({ status: 200, data: { access_token: 'at-alice' } });
      }),
      { numRuns: 40 },
    );
  });
});
