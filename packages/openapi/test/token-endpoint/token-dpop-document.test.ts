/**
 * docs/contract.md#openapi and #dpop: a token endpoint given `dpop` documents what its proof check
 * answers (RFC 9449 §5, §8): the `DPoP` request header, `invalid_dpop_proof` in its 400 and, when
 * it may ask for a nonce, `use_dpop_nonce` with the optional `DPoP-Nonce` header; options given as
 * a function of ctx are documented as what they may answer. Each real refusal, on both REST faces,
 * is a body and headers its document describes.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { dpopNonces, dpopProofVerifier } from '@trpc-oauth2/core/dpop';
import { tokenEndpoint, type TokenEndpointDPoPOptions } from '@trpc-oauth2/core/token-endpoint';
import { initTRPC } from '@trpc/server';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { DPOP_ORIGIN } from '../support/dpop-faces.js';
import { REST_FACES, serveFaces, type RunningFace } from '../support/faces.js';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
const NONCE_SECRET = 'the-token-endpoint-nonce-secret-0123456789abcdef';
const nonces = dpopNonces({ secret: NONCE_SECRET });
const withNonces: TokenEndpointDPoPOptions = { proofs: dpopProofVerifier({ nonces }), origin: DPOP_ORIGIN };

const endpoint = (path: `/${string}`, dpop?: TokenEndpointDPoPOptions | ((ctx: { req: unknown }) => TokenEndpointDPoPOptions)) =>
  tokenEndpoint(t.procedure.meta({ openapi: { method: 'POST', path } }), { authenticateClient: () => ({ id: null }), ...(dpop === undefined ? {} : { dpop }) })
    .grant('client_credentials', ({ dpop: proof }) => ({ access_token: 'a', token_type: proof ? 'DPoP' : 'Bearer' }))
    .build();

const router = t.router({
  nonces: endpoint('/token/nonces', withNonces),
  required: endpoint('/token/required', { proofs: dpopProofVerifier(), origin: DPOP_ORIGIN, required: true }),
  fromCtx: endpoint('/token/ctx', () => withNonces),
  plain: endpoint('/token/plain'),
});
const document = generateOAuth2OpenApiDocument(router, { title: 'T', version: '1', baseUrl: 'http://127.0.0.1/api' });
const operation = (path: string) => (document.paths as any)[path].post;
const badRequest = (path: string) => operation(path).responses['400'];
const dpopHeader = (path: string) => (operation(path).parameters ?? []).find((parameter: any) => parameter.in === 'header' && parameter.name === 'DPoP');

const RFC_6749 = ['invalid_request', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'];

describe('the OpenAPI document of a token endpoint that checks DPoP proofs', () => {
  it('passes the OpenAPI 3.1 validator', async () => {
    expect(await new Validator().validate(structuredClone(document) as never)).toEqual({ valid: true });
  });

  it.each([
    ['a proof checker with nonces', '/token/nonces', [...RFC_6749, 'invalid_dpop_proof', 'use_dpop_nonce'], true, false],
    ['proofs required, no nonces', '/token/required', [...RFC_6749, 'invalid_dpop_proof'], false, true],
    ['options from ctx: what they may answer', '/token/ctx', [...RFC_6749, 'invalid_dpop_proof', 'use_dpop_nonce'], true, false],
  ] as const)('%s: its 400 codes, DPoP-Nonce and DPoP headers', (_name, path, codes, nonce, required) => {
    expect(badRequest(path).content['application/json'].schema.properties.error.enum).toEqual(codes);
    expect(badRequest(path).headers['DPoP-Nonce']).toEqual(nonce ? { description: expect.stringContaining('use_dpop_nonce'), required: false, schema: { type: 'string' } } : undefined);
    expect(dpopHeader(path)).toMatchObject({ name: 'DPoP', in: 'header', required, schema: { type: 'string' } });
  });

  it('documents an endpoint without dpop as before: the RFC 6749 codes, no DPoP header', () => {
    expect(badRequest('/token/plain').content['application/json'].schema.properties.error.enum).toEqual(RFC_6749);
    expect(badRequest('/token/plain').headers['DPoP-Nonce']).toBeUndefined();
    expect(dpopHeader('/token/plain')).toBeUndefined();
  });
});

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validate = (schema: object, body: unknown) => {
  const check = ajv.compile(schema);
  return check(body) ? [] : check.errors;
};

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
}
let key: Key;
let faces: Record<(typeof REST_FACES)[number], RunningFace>;
beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  key = { privateKey, jwk: await exportJWK(publicKey) };
  faces = await serveFaces(router, REST_FACES);
});
afterAll(() => Promise.all(Object.values(faces).map((face) => face.close())));

/** A proof for POST at `path` (below `/api`) under the endpoint's public origin, with `nonce` when given. */
const proofFor = (path: string, nonce?: string) =>
  new SignJWT({ htm: 'POST', htu: `${DPOP_ORIGIN}/api${path}`, iat: Math.floor(Date.now() / 1000), jti: crypto.randomUUID(), ...(nonce === undefined ? {} : { nonce }) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey);

describe.each(REST_FACES)('every DPoP refusal of the token endpoint on %s is what its document says', (face) => {
  const post = (path: string, proof?: string) =>
    fetch(`${faces[face].origin}/api${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(proof === undefined ? {} : { dpop: proof }) },
      body: 'grant_type=client_credentials',
    });

  /** The proof a row sends: none, a malformed one, or a proof without a nonce for the URL given. */
  const proofOf = (proof: 'none' | 'malformed' | `/${string}`): Promise<string | undefined> | string | undefined =>
    proof === 'none' ? undefined : proof === 'malformed' ? 'not-a-jwt' : proofFor(proof);

  it.each([
    ['a malformed proof', '/token/nonces', 'malformed', 'invalid_dpop_proof'],
    ['a proof without the nonce', '/token/nonces', '/token/nonces', 'use_dpop_nonce'],
    ['a proof without the nonce, options from ctx', '/token/ctx', '/token/ctx', 'use_dpop_nonce'],
    ['no proof where one is required', '/token/required', 'none', 'invalid_dpop_proof'],
    ['a proof for another URL', '/token/required', '/token/nonces', 'invalid_dpop_proof'],
  ] as const)('%s at %s', async (_name, path, proof, expected) => {
    const response = await post(path, await proofOf(proof));
    const body = await response.json();
    expect({ status: response.status, error: body.error }).toEqual({ status: 400, error: expected });
    const documented = badRequest(path);
    expect(validate(documented.content['application/json'].schema, body)).toEqual([]);
    // Every header the answer carries that the document names is as documented; every required one is sent.
    for (const [name, header] of Object.entries<any>(documented.headers)) {
      if (header.required !== false) expect(response.headers.get(name), name).not.toBeNull();
      if (header.schema.const !== undefined) expect(response.headers.get(name), name).toBe(header.schema.const);
    }
    const nonce = response.headers.get('dpop-nonce');
    if (expected === 'use_dpop_nonce') {
      expect(nonce).toBeTruthy();
      expect(Object.keys(documented.headers)).toContain('DPoP-Nonce');
    } else expect(nonce).toBeNull();
  });

  it('answers a proof with the nonce it asked for with DPoP-bound tokens', async () => {
    const asked = await post('/token/nonces', await proofFor('/token/nonces'));
    const nonce = asked.headers.get('dpop-nonce')!;
    const response = await post('/token/nonces', await proofFor('/token/nonces', nonce));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ access_token: 'a', token_type: 'DPoP' });
  });
});
