import { Validator } from '@seriousme/openapi-schema-validator';
import { anyOf, oauth2AuthorizationCodeBearer, oauth2PasswordBearer, requireAuthentication, type TokenVerifier } from '@trpc-oauth2/core';
import { dpopNonces, dpopProofVerifier } from '@trpc-oauth2/core/dpop';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';

// docs/contract.md#dpop: a reader that accepts DPoP is documented with an HTTP `DPoP` scheme beside
// its OAuth 2.0 one: an alternative where DPoP is allowed, the only requirement where it is required.
const verify: TokenVerifier<{ scopes: string[] }> = async () => ({ scopes: ['me', 'items'] });
const scopes = { me: 'Read me', items: 'Read items' };
const origin = 'https://api.example';
const proofs = dpopProofVerifier({ algorithms: ['ES256', 'EdDSA'] });
const allowed = oauth2PasswordBearer({ tokenUrl: '/api/token', scopes, schemeName: 'Allowed', verify, origin, dpop: { mode: 'allowed', proofs } });
const required = oauth2PasswordBearer({ tokenUrl: '/api/token', scopes, schemeName: 'Required', verify, origin, dpop: { mode: 'required', proofs } });
const plain = oauth2PasswordBearer({ tokenUrl: '/api/token', scopes, schemeName: 'Plain', verify });
const external = oauth2AuthorizationCodeBearer({
  authorizationUrl: '/oidc/auth',
  tokenUrl: '/oidc/token',
  scopes,
  schemeName: 'External',
  verify,
  origin,
  dpop: { mode: 'allowed', proofs },
});
const either = anyOf(allowed, external);
const t = initTRPC.meta<OpenApiMeta>().create();
const get = (path: `/${string}`) => ({ openapi: { method: 'GET', path } }) as const;
const router = t.router({
  allowed: t.procedure.use(allowed.withScopes('me')).meta(get('/allowed')).input(z.void()).output(z.string()).query(() => ''),
  required: t.procedure.use(required.withScopes('me', 'items')).meta(get('/required')).input(z.void()).output(z.string()).query(() => ''),
  plain: t.procedure.use(plain.withScopes('me')).meta(get('/plain')).input(z.void()).output(z.string()).query(() => ''),
  either: t.procedure.use(either).use(either.requireScopes('items')).meta(get('/either')).input(z.void()).output(z.string()).query(() => ''),
});
const document = generateOAuth2OpenApiDocument(router, { title: 'DPoP', version: '1', baseUrl: '/api' });
const security = (path: string) => document.paths?.[path]?.get?.security;

describe('DPoP in the OpenAPI document', () => {
  it('declares an HTTP DPoP scheme (RFC 9449 §7.1) beside each DPoP reader\'s OAuth 2.0 scheme', () => {
    const schemes = document.components?.securitySchemes ?? {};
    expect(Object.keys(schemes).sort()).toEqual(['Allowed', 'AllowedDPoP', 'External', 'ExternalDPoP', 'Plain', 'Required', 'RequiredDPoP']);
    expect(schemes.Allowed).toEqual(allowed.securityScheme);
    expect(schemes.AllowedDPoP).toEqual({
      type: 'http',
      scheme: 'DPoP',
      description: 'DPoP-bound access tokens (RFC 9449) of the Allowed scheme: send `Authorization: DPoP <token>` and a `DPoP` proof header signed with ES256, EdDSA.',
    });
    expect(schemes.RequiredDPoP).toMatchObject({ type: 'http', scheme: 'DPoP', description: expect.stringMatching(/^Only DPoP-bound access tokens/) });
  });

  it('lists DPoP as an alternative where it is allowed, alone where it is required, not at all elsewhere', () => {
    expect(security('/allowed')).toEqual([{ Allowed: ['me'] }, { AllowedDPoP: ['me'] }]);
    expect(security('/required')).toEqual([{ RequiredDPoP: ['me', 'items'] }]);
    expect(security('/plain')).toEqual([{ Plain: ['me'] }]);
    expect(security('/either')).toEqual([{ Allowed: ['items'] }, { AllowedDPoP: ['items'] }, { External: ['items'] }, { ExternalDPoP: ['items'] }]);
  });

  it('documents the 401 challenges of both schemes', () => {
    const allowed401 = JSON.stringify(document.paths?.['/allowed']?.get?.responses?.['401']);
    expect(allowed401).toContain('Bearer, DPoP algs=\\"ES256 EdDSA\\"');
    expect(JSON.stringify(document.paths?.['/required']?.get?.responses?.['401'])).toContain('DPoP algs=\\"ES256 EdDSA\\"');
  });

  // What a DPoP reader answers is documented in the scheme it answers in: a reader that takes DPoP
  // only never sends a Bearer refusal, one that takes either sends each (docs/contract.md#dpop).
  it('documents each refusal in the schemes it is sent in: invalid_token, invalid_dpop_proof, insufficient_scope and a step-up', () => {
    const examples = (path: string, status: string): string[] =>
      (document.paths?.[path]?.get?.responses?.[status] as { headers?: { 'WWW-Authenticate'?: { schema: { examples: string[] } } } })?.headers?.['WWW-Authenticate']?.schema.examples ?? [];
    expect(examples('/required', '403')).toEqual(['DPoP error="insufficient_scope", scope="me items", algs="ES256 EdDSA"']);
    const invalidProof = 'DPoP error="invalid_dpop_proof", error_description="The DPoP proof is invalid", algs="ES256 EdDSA"';
    expect(examples('/required', '401')).toEqual(['DPoP algs="ES256 EdDSA"', 'DPoP error="invalid_token", error_description="The access token is invalid", algs="ES256 EdDSA"', invalidProof]);
    expect(examples('/allowed', '403')).toEqual(['Bearer error="insufficient_scope", scope="me"', 'DPoP error="insufficient_scope", scope="me", algs="ES256 EdDSA"']);
    expect(examples('/allowed', '401')).toEqual([
      'Bearer, DPoP algs="ES256 EdDSA"',
      'Bearer error="invalid_token", error_description="The access token is invalid"',
      'DPoP error="invalid_token", error_description="The access token is invalid", algs="ES256 EdDSA"',
      invalidProof,
    ]);
    // Without nonces, no `use_dpop_nonce` and no `DPoP-Nonce` header.
    expect(document.paths?.['/allowed']?.get?.responses?.['401']).not.toHaveProperty(['headers', 'DPoP-Nonce']);
    expect(examples('/plain', '401').some((example) => example.startsWith('DPoP'))).toBe(false);
    // A principal that says how its user authenticated, as a step-up reads it.
    const authenticated: TokenVerifier<{ scopes: string[]; acr?: string }> = async () => ({ scopes: [], acr: 'pwd' });
    const reader = (mode: 'required' | 'allowed') =>
      oauth2PasswordBearer({ tokenUrl: '/api/token', scopes, schemeName: `StepUp${mode}`, verify: authenticated, origin, dpop: { mode, proofs } });
    const stepUps = t.router({
      required: t.procedure.use(reader('required')).use(requireAuthentication({ acrValues: ['mfa'] })).meta(get('/required')).input(z.void()).output(z.string()).query(() => ''),
      allowed: t.procedure.use(reader('allowed')).use(requireAuthentication({ acrValues: ['mfa'] })).meta(get('/allowed')).input(z.void()).output(z.string()).query(() => ''),
    });
    const stepUpDocument = generateOAuth2OpenApiDocument(stepUps, { title: 'Step-up', version: '1', baseUrl: '/api' });
    const stepUp = (path: string) =>
      ((stepUpDocument.paths?.[path]?.get?.responses?.['401'] as { headers: { 'WWW-Authenticate': { schema: { examples: string[] } } } }).headers['WWW-Authenticate'].schema.examples).filter(
        (example) => example.includes('insufficient_user_authentication'),
      );
    const described = 'error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="mfa"';
    expect(stepUp('/required')).toEqual([`DPoP ${described}, algs="ES256 EdDSA"`]);
    expect(stepUp('/allowed')).toEqual([`Bearer ${described}`, `DPoP ${described}, algs="ES256 EdDSA"`]);
  });

  it('documents use_dpop_nonce and the DPoP-Nonce header of a reader whose checker asks for nonces', async () => {
    const nonces = dpopNonces({ secret: 'a secret of at least thirty-two bytes, for nonces' });
    const asking = oauth2PasswordBearer({ tokenUrl: '/api/token', scopes, schemeName: 'Nonces', verify, origin, dpop: { mode: 'allowed', proofs: dpopProofVerifier({ algorithms: ['ES256'], nonces }) } });
    const withNonces = generateOAuth2OpenApiDocument(t.router({ nonces: t.procedure.use(asking.withScopes('me')).meta(get('/nonces')).input(z.void()).output(z.string()).query(() => '') }), {
      title: 'Nonces',
      version: '1',
      baseUrl: '/api',
    });
    const unauthorized = withNonces.paths?.['/nonces']?.get?.responses?.['401'] as { headers: Record<string, { required: boolean; schema: { examples?: string[] } }> };
    expect(unauthorized.headers['WWW-Authenticate']!.schema.examples).toContain(
      'DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof", algs="ES256"',
    );
    expect(unauthorized.headers['DPoP-Nonce']).toMatchObject({ required: false, schema: { type: 'string' } });
    expect(await new Validator().validate(JSON.parse(JSON.stringify(withNonces)))).toEqual({ valid: true });
  });

  it('passes an OpenAPI 3.1 validator', async () => {
    expect(await new Validator().validate(JSON.parse(JSON.stringify(document)))).toEqual({ valid: true });
  });
});
