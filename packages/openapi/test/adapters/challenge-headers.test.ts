import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { oauth2AuthorizationCodeBearer, oauth2PasswordBearer } from '@trpc-oauth2/core';
import { dpopProofVerifier } from '@trpc-oauth2/core/dpop';
import { FACES, call, isRest, serveFaces, type Face, type RunningFace } from '../support/faces.js';
import { HEADER_TABLE } from '@trpc-oauth2/test-kit';
import { BEARER_READERS, httpRouter } from '../support/http-router.js';

let servers: Record<Face, RunningFace>;
beforeAll(async () => {
  servers = await serveFaces(httpRouter, FACES);
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server.close()));
});

const rows = FACES.flatMap((face) => HEADER_TABLE.map((row) => ({ face, ...row })));
const headers = (header: string | undefined): Record<string, string> => (header === undefined ? {} : { authorization: header });

describe("the header table of docs/contract.md#reading-the-authorization-header on every face (trpc-to-openapi's two handlers, tRPC's two adapters)", () => {
  const bearer = rows.flatMap((row) => BEARER_READERS.map((reader) => ({ ...row, reader })));

  it.each(bearer.filter((c) => c.bearer !== null))('$face $reader: $header → token $bearer', async ({ face, reader, header, bearer: token }) => {
    const result = await call(servers[face], reader, { headers: headers(header) });
    expect(result).toMatchObject({ status: 200, challenge: null, data: { token } });
  });

  it.each(bearer.filter((c) => c.bearer === null))(
    '$face $reader: $header → 401 "Not authenticated", WWW-Authenticate: Bearer',
    async ({ face, reader, header }) => {
      const result = await call(servers[face], reader, { headers: headers(header) });
      expect(result.status).toBe(401);
      expect(result.challenge).toBe('Bearer');
      expect(result.error).toEqual({ message: 'Not authenticated', code: 'UNAUTHORIZED' });
    },
  );

  it.each(bearer.map((c) => ({ ...c, reader: `${c.reader}Optional` })))(
    '$face $reader (autoError: false): $header → $bearer',
    async ({ face, reader, header, bearer: token }) => {
      const result = await call(servers[face], reader, { headers: headers(header) });
      expect(result).toMatchObject({ status: 200, challenge: null, data: { token } });
    },
  );

  it.each(rows.filter((c) => c.base !== null))('$face base: $header → the whole value', async ({ face, header, base }) => {
    const result = await call(servers[face], 'base', { headers: headers(header) });
    expect(result).toMatchObject({ status: 200, challenge: null, data: { authorization: base } });
  });

  it.each(rows.filter((c) => c.base === null))('$face base: $header → 403 "Not authenticated", no challenge', async ({ face, header }) => {
    const result = await call(servers[face], 'base', { headers: headers(header) });
    expect(result.status).toBe(403);
    expect(result.challenge).toBeNull();
    expect(result.error).toEqual({ message: 'Not authenticated', code: 'FORBIDDEN' });
  });

  it.each(rows)('$face baseOptional: $header → $base', async ({ face, header, base }) => {
    const result = await call(servers[face], 'baseOptional', { headers: headers(header) });
    expect(result).toMatchObject({ status: 200, challenge: null, data: { authorization: base } });
  });
});

/**
 * docs/contract.md#subscriptions: a credential in the URL (`connectionParams`, which tRPC's
 * adapters read from the query of any call) is refused with a challenge that names the
 * resource's metadata when the reader was given it, as its every other challenge does
 * (RFC 9728 §5.1). The REST faces read no `connectionParams`: there the query is an operation's
 * input, and the call without a header is a 401 naming the metadata too.
 */
describe('a credential in the URL, with a reader given resourceMetadata, on every face', () => {
  const M = 'https://api.example.test/.well-known/oauth-protected-resource/api';
  const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
  const reader = oauth2PasswordBearer({ tokenUrl: '/token', resourceMetadata: M, verify: async (token) => ({ scopes: [], token }) });
  const codeReader = oauth2AuthorizationCodeBearer({ authorizationUrl: 'https://as.example.test/authorize', tokenUrl: 'https://as.example.test/token', resourceMetadata: M, verify: async (token) => ({ scopes: [], token }) });
  const router = t.router({
    me: t.procedure.meta({ openapi: { method: 'GET', path: '/me' } }).use(reader).input(z.object({ connectionParams: z.string().optional() })).output(z.string()).query(() => 'me'),
    plain: t.procedure.meta({ openapi: { method: 'GET', path: '/plain' } }).use(codeReader).input(z.object({ connectionParams: z.string().optional() })).output(z.string()).query(() => 'plain'),
  });
  let running: Record<Face, RunningFace>;
  beforeAll(async () => {
    // The readers find `connectionParams` in tRPC's `info`, which the application puts on ctx.
    running = await serveFaces(router, FACES, { createContext: ({ req, info }) => ({ req, info }) });
  });
  afterAll(() => Promise.all(Object.values(running).map((server) => server.close())));

  const params = encodeURIComponent(JSON.stringify({ authorization: 'Bearer from-the-url' }));
  const target = (face: Face, procedure: string) => (isRest(face) ? `/api/${procedure}?connectionParams=${params}` : `/trpc/${procedure}?connectionParams=${params}`);

  it.each(FACES.flatMap((face) => ['me', 'plain'].map((procedure) => ({ face, procedure }))))(
    '$face $procedure: the challenge names the metadata',
    async ({ face, procedure }) => {
      const response = await fetch(`${running[face].origin}${target(face, procedure)}`);
      await response.text();
      if (isRest(face)) {
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${M}"`);
      } else {
        expect(response.status).toBe(400);
        expect(response.headers.get('www-authenticate')).toBe(`Bearer error="invalid_request", resource_metadata="${M}"`);
      }
    },
  );
});

/**
 * docs/contract.md#subscriptions, docs/contract.md#dpop: a reader that accepts DPoP refuses a
 * credential in the URL in the schemes it accepts, as its not-authenticated error challenges:
 * DPoP alone (with `algs`) where DPoP is required, both where it is allowed; each naming the
 * metadata when the reader was given it.
 */
describe('a credential in the URL, with a reader that accepts DPoP, on every face', () => {
  const M = 'https://api.example.test/.well-known/oauth-protected-resource/api';
  const ALGS = 'algs="ES256"';
  const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();
  const verify = async (token: string) => ({ scopes: [], token });
  const proofs = dpopProofVerifier({ algorithms: ['ES256'] });
  const dpopReader = (mode: 'required' | 'allowed', resourceMetadata?: string) =>
    oauth2PasswordBearer({ tokenUrl: '/token', verify, origin: 'https://api.example.test', dpop: { mode, proofs }, ...(resourceMetadata === undefined ? {} : { resourceMetadata }) });
  const input = z.object({ connectionParams: z.string().optional() });
  const procedure = (path: `/${string}`, reader: ReturnType<typeof dpopReader>) =>
    t.procedure.meta({ openapi: { method: 'GET', path } }).use(reader).input(input).output(z.string()).query(() => 'ran');
  const router = t.router({
    required: procedure('/required', dpopReader('required', M)),
    allowed: procedure('/allowed', dpopReader('allowed', M)),
    requiredPlain: procedure('/required-plain', dpopReader('required')),
    allowedPlain: procedure('/allowed-plain', dpopReader('allowed')),
  });
  const expected = {
    required: `DPoP error="invalid_request", resource_metadata="${M}", ${ALGS}`,
    allowed: `Bearer error="invalid_request", resource_metadata="${M}", DPoP error="invalid_request", resource_metadata="${M}", ${ALGS}`,
    requiredPlain: `DPoP error="invalid_request", ${ALGS}`,
    allowedPlain: `Bearer error="invalid_request", DPoP error="invalid_request", ${ALGS}`,
  } as const;
  let running: Record<Face, RunningFace>;
  beforeAll(async () => {
    running = await serveFaces(router, FACES, { createContext: ({ req, info }) => ({ req, info }) });
  });
  afterAll(() => Promise.all(Object.values(running).map((server) => server.close())));

  const params = (scheme: string) => encodeURIComponent(JSON.stringify({ authorization: `${scheme} from-the-url` }));
  const cases = FACES.filter((face) => !isRest(face)).flatMap((face) =>
    (Object.keys(expected) as (keyof typeof expected)[]).flatMap((procedure) => ['Bearer', 'DPoP'].map((scheme) => ({ face, procedure, scheme }))),
  );

  it.each(cases)('$face $procedure ($scheme in the URL): 400 invalid_request in the schemes the reader accepts', async ({ face, procedure, scheme }) => {
    const response = await fetch(`${running[face].origin}/trpc/${procedure}?connectionParams=${params(scheme)}`);
    expect(await response.json()).toMatchObject({ error: { message: 'A credential in the URL is refused: send it in the Authorization header' } });
    expect({ status: response.status, challenge: response.headers.get('www-authenticate') }).toEqual({ status: 400, challenge: expected[procedure] });
  });
});
