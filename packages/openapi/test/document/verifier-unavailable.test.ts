/**
 * The 503 of a verified chain (docs/contract.md#openapi): an operation whose chain holds a reader
 * given `verify` answers 503 `SERVICE_UNAVAILABLE` when its verifier's authorization server cannot
 * answer (docs/contract.md#verified-readers), and its document says so, with the body the REST
 * faces really send; an operation whose chain calls no verifier lists none.
 */
import { createServer, type Server } from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import {
  anyOf,
  oauth2AuthorizationCodeBearer,
  oauth2PasswordBearer,
  requireAuthentication,
  type AuthenticatedPrincipal,
  type Principal,
  type TokenVerifier,
} from '@trpc-oauth2/core';
import { dpopProofVerifier } from '@trpc-oauth2/core/dpop';
import { oauth2ErrorData } from '@trpc-oauth2/core/token-endpoint';
import { introspectionVerifier, jwtVerifier } from '@trpc-oauth2/jwt';
import { closing, listening } from '@trpc-oauth2/test-kit';
import { initTRPC } from '@trpc/server';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { REST_FACES, serveFaces, type RunningFace } from '../support/faces.js';

const scopes = { me: 'Read you', items: 'Read your items' };
const verify: TokenVerifier<{ scopes: string[] }> = async () => ({ scopes: ['me', 'items'] });
const verified = oauth2PasswordBearer({ tokenUrl: 'token', scopes, schemeName: 'Verified', verify });
const optionalVerified = oauth2PasswordBearer({ tokenUrl: 'token', scopes, schemeName: 'Verified', verify, autoError: false });
const plain = oauth2PasswordBearer({ tokenUrl: 'token', scopes, schemeName: 'Plain', manualScopeCheck: true });
const external = oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', scopes, schemeName: 'External', verify });
const group = anyOf(verified, external);
const dpop = oauth2PasswordBearer({
  tokenUrl: 'token',
  scopes,
  schemeName: 'Bound',
  verify,
  origin: 'https://api.example',
  dpop: { mode: 'required', proofs: dpopProofVerifier({ algorithms: ['ES256'] }) },
});

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
const get = (path: `/${string}`, more: Partial<NonNullable<OpenApiMeta['openapi']>> = {}) => ({ openapi: { method: 'GET', path, ...more } }) as const;
const router = t.router({
  verified: t.procedure.use(verified).meta(get('/verified')).input(z.void()).output(z.string()).query(() => ''),
  scoped: t.procedure.use(verified.withScopes('me')).meta(get('/scoped')).input(z.void()).output(z.string()).query(() => ''),
  // A verified reader's `requireScopes` consults its reader, `.use(verified)` or not.
  scopesOnly: t.procedure.use(verified.requireScopes('me')).meta(get('/scopes-only')).input(z.void()).output(z.string()).query(() => ''),
  // Optional, yet a token that comes is verified.
  optional: t.procedure.use(optionalVerified).meta(get('/optional')).input(z.void()).output(z.string()).query(() => ''),
  group: t.procedure.use(group).use(group.requireScopes('items')).meta(get('/group')).input(z.void()).output(z.string()).query(() => ''),
  mixed: t.procedure.use(plain).use(verified).meta(get('/mixed')).input(z.void()).output(z.string()).query(() => ''),
  dpop: t.procedure.use(dpop.withScopes('me')).meta(get('/dpop')).input(z.void()).output(z.string()).query(() => ''),
  plain: t.procedure.use(plain.withScopes('me')).meta(get('/plain')).input(z.void()).output(z.string()).query(() => ''),
  plainOwn: t.procedure.use(plain).meta(get('/plain/own', { protect: true })).input(z.void()).output(z.string()).query(() => ''),
  // A step-up checks a principal the application's own middleware put on ctx: no verifier is called.
  stepUpOnly: t.procedure
    .use(({ next }) => next({ ctx: { principal: null as AuthenticatedPrincipal | null } }))
    .use(requireAuthentication({ acrValues: ['mfa'] }))
    .meta(get('/step-up'))
    .input(z.void())
    .output(z.string())
    .query(() => ''),
  open: t.procedure.meta(get('/open')).input(z.void()).output(z.string()).query(() => ''),
  // The application's own account of its 503 (a maintenance window, say) is kept.
  ownUnavailable: t.procedure
    .use(verified)
    .meta(get('/own-unavailable', { errorResponses: { 401: 'Not authenticated', 503: 'Down for maintenance' } }))
    .input(z.void())
    .output(z.string())
    .query(() => ''),
  listedWithout: t.procedure.use(verified).meta(get('/listed-without', { errorResponses: [401] })).input(z.void()).output(z.string()).query(() => ''),
});
const document = generateOAuth2OpenApiDocument(router, { title: '503', version: '1.0.0', baseUrl: 'http://127.0.0.1/api' }) as any;
const responsesOf = (path: string) => document.paths[path].get.responses;

describe('the 503 of a verified chain, in the document', () => {
  it.each(['/verified', '/scoped', '/scopes-only', '/optional', '/group', '/mixed', '/dpop', '/listed-without'])('%s lists it: its chain calls a verifier', (path) => {
    expect(responsesOf(path)['503']).toEqual({
      description:
        'The token cannot be verified for now (a `SERVICE_UNAVAILABLE` fault): its verifier cannot reach the authorization server (key set, introspection endpoint); the client may try again later',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/error.SERVICE_UNAVAILABLE' } } },
    });
  });

  it('is listed by exactly the operations whose chain calls a verifier: not a reader without `verify`, a step-up alone or an open operation', () => {
    const listing = Object.keys(document.paths).filter((path) => responsesOf(path)['503'] !== undefined);
    expect(listing).toEqual(['/verified', '/scoped', '/scopes-only', '/optional', '/group', '/mixed', '/dpop', '/own-unavailable', '/listed-without']);
  });

  it('keeps the statuses in order, after trpc-to-openapi’s 500', () => {
    expect(Object.keys(responsesOf('/scoped'))).toEqual(['200', '401', '403', '500', '503']);
    expect(Object.keys(responsesOf('/plain'))).toEqual(['200', '401', '403', '500']);
  });

  it('keeps a 503 the meta lists itself, and adds it beside a list without one', () => {
    expect(responsesOf('/own-unavailable')['503'].description).toBe('Down for maintenance');
    expect(responsesOf('/own-unavailable')['503'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/error.SERVICE_UNAVAILABLE' });
    expect(Object.keys(responsesOf('/listed-without'))).toEqual(['200', '401', '503']);
  });

  it('registers the body itself when no meta lists a 503: the body as sent; the documents pass the OpenAPI 3.1 validator', async () => {
    const alone = t.router({ me: t.procedure.use(verified.withScopes('me')).meta(get('/me')).input(z.void()).output(z.string()).query(() => '') });
    const generated = generateOAuth2OpenApiDocument(alone, { title: '503', version: '1.0.0', baseUrl: '/api' }) as any;
    const schema = generated.components.schemas['error.SERVICE_UNAVAILABLE'];
    // trpc-to-openapi's `{ message, code }` with the formatter's `data` (`oauth2`: null, no OAuth 2.0 refusal).
    expect(schema.required).toEqual(['message', 'code']);
    expect(Object.keys(schema.properties)).toEqual(['message', 'code', 'data']);
    expect(schema.properties.data.properties.oauth2.oneOf).toContainEqual({ type: 'null' });
    expect(schema.example).toEqual({
      message: 'The token verifier is unavailable',
      code: 'SERVICE_UNAVAILABLE',
      data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503, path: 'procedure.path', oauth2: null },
    });
    expect(await new Validator().validate(structuredClone(generated))).toEqual({ valid: true });
    expect(await new Validator().validate(structuredClone(document))).toEqual({ valid: true });
  });
});

/** A server on a loopback port: one answering `status` to everything, or, closed, a port nobody listens on. */
async function authorizationServer(status?: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => void res.writeHead(status ?? 500, { 'content-type': 'application/json' }).end('{"error":"down"}'));
  server.listen(0, '127.0.0.1');
  const port = await listening(server);
  if (status === undefined) await closing(server);
  return { url: `http://127.0.0.1:${port}`, close: () => (status === undefined ? Promise.resolve() : closing(server)) };
}

const ISSUER = 'https://as.example';
const AUDIENCE = 'https://api.example';
const b64 = (text: string) => Buffer.from(text).toString('base64url');
/** A token of the issuer's shape: the verifier needs its key set before it can judge the signature. */
const jwt = `${b64(JSON.stringify({ alg: 'ES256', typ: 'at+jwt' }))}.${b64(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', exp: 4_102_444_800 }))}.${b64('x'.repeat(64))}`;

describe.each(['a jwtVerifier whose key set nobody serves', 'a jwtVerifier whose key set answers 500', 'an introspectionVerifier whose endpoint answers 500'])(
  'over REST, %s: 503, with the body the document lists',
  (arrangement) => {
    let as: Awaited<ReturnType<typeof authorizationServer>>;
    let faces: Record<(typeof REST_FACES)[number], RunningFace>;
    let restDocument: any;

    beforeAll(async () => {
      as = await authorizationServer(arrangement.includes('nobody') ? undefined : 500);
      const verifier: TokenVerifier<Principal> = arrangement.startsWith('an introspection')
        ? introspectionVerifier({ endpoint: `${as.url}/introspect`, clientId: 'api', clientSecret: 'secret', audience: AUDIENCE })
        : jwtVerifier({ jwksUrl: `${as.url}/jwks`, algorithms: ['ES256'], issuer: ISSUER, audience: AUDIENCE });
      const reader = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: verifier });
      // The errorFormatter the library's error bodies are documented with (`oauth2ErrorData`).
      const rest = initTRPC
        .context<{ req?: unknown }>()
        .meta<OpenApiMeta>()
        .create({ errorFormatter: ({ shape, error }) => ({ ...shape, data: { ...shape.data, oauth2: oauth2ErrorData(error) } }) });
      const restRouter = rest.router({
        me: rest.procedure.use(reader.withScopes('me')).meta(get('/me')).input(z.void()).output(z.string()).query(() => 'me'),
      });
      restDocument = generateOAuth2OpenApiDocument(restRouter, { title: '503', version: '1.0.0', baseUrl: 'http://127.0.0.1/api' });
      faces = await serveFaces(restRouter, REST_FACES);
    });
    afterAll(async () => {
      await Promise.all([...Object.values(faces ?? {}).map((face) => face.close()), as?.close()]);
    });

    it.each(REST_FACES)('%s', async (face) => {
      const response = await fetch(`${faces[face].origin}/api/me`, { headers: { authorization: `Bearer ${jwt}` } });
      const body = await response.json();
      expect(response.status).toBe(503);
      expect(body).toMatchObject({ message: 'The token verifier is unavailable', code: 'SERVICE_UNAVAILABLE', data: { httpStatus: 503, oauth2: null } });
      // What the document says of the answer: no challenge (the token may be good), no Retry-After.
      const documented = restDocument.paths['/me'].get.responses['503'];
      expect(documented.headers).toBeUndefined();
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(response.headers.get('retry-after')).toBeNull();
      expect(validate(restDocument, documented.content['application/json'].schema, body)).toEqual([]);
    });
  },
);

/** The errors of `body` against `schema`, its `#/components/…` refs resolved against `document`. */
function validate(document: { components?: unknown }, schema: object, body: unknown): unknown[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: 'doc', components: document.components } as never);
  const check = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')));
  return check(body) ? [] : (check.errors ?? []);
}
