import { TRPCError, initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { getOAuth2Error } from '../src/index.js';
import {
  authorizationCodeGrantForm,
  isCodeVerifier,
  refreshTokenGrantForm,
  s256CodeChallenge,
  tokenEndpoint,
  tokenErrorResponse,
  verifyCodeVerifier,
} from '../src/token-endpoint/index.js';
import { getTokenEndpoint } from '../src/protocol.js';
import fc from 'fast-check';

// docs/contract.md#token-responses

describe('PKCE (RFC 7636)', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('computes the S256 challenge of RFC 7636 Appendix B', async () => {
    expect(await s256CodeChallenge(verifier)).toBe(challenge);
    expect(await verifyCodeVerifier(verifier, challenge)).toBe(true);
  });

  it.each([
    ['a missing verifier', null],
    ['42 characters', 'a'.repeat(42)],
    ['129 characters', 'a'.repeat(129)],
    ['a reserved character', `${verifier.slice(0, -1)}+`],
    ['another verifier', `${verifier.slice(0, -1)}Y`],
  ])('refuses %s', async (_name, candidate) => {
    expect(await verifyCodeVerifier(candidate, challenge)).toBe(false);
  });

  it('accepts exactly the verifiers of 43–128 unreserved characters, each against its own challenge only (property)', async () => {
    const unreserved = fc.constantFrom(...'ABCXYZabcxyz0189-._~'.split(''));
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: unreserved, minLength: 43, maxLength: 128 }), fc.string({ unit: unreserved, minLength: 43, maxLength: 128 }), async (a, b) => {
        expect(isCodeVerifier(a)).toBe(true);
        expect(await verifyCodeVerifier(a, await s256CodeChallenge(a))).toBe(true);
        expect(await verifyCodeVerifier(a, await s256CodeChallenge(b))).toBe(a === b);
      }),
      { numRuns: 100 },
    );
  });
});

describe('the grant forms', () => {
  it('read the last of repeated values, drop empty ones, and name missing fields without quoting values', () => {
    const form = refreshTokenGrantForm.schema.parse(new URLSearchParams('grant_type=refresh_token&refresh_token=a&refresh_token=b&scope=me%20items&client_id='));
    expect(form).toEqual({ grant_type: 'refresh_token', refresh_token: 'b', scope: 'me items', scopes: ['me', 'items'], client_id: null, client_secret: null });
    const refused = authorizationCodeGrantForm.schema.safeParse({ grant_type: 'authorization_code', code_verifier: 1 });
    expect(refused.error?.issues.map((issue) => issue.message)).toEqual(['code: field required', 'code_verifier: must be text']);
  });
});

describe('tokenEndpoint', () => {
  const t = initTRPC.context<{ headers?: Record<string, string> }>().create();
  const token = tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), defaultGrantType: 'password', maxBodySize: 1_000 })
    .grant('password', ({ form }) => ({ access_token: form.username, token_type: 'Bearer' }))
    .build();

  it('declares itself for the HTTP layers', () => {
    expect(getTokenEndpoint(token)).toEqual({
      kind: 'token',
      grants: [{ grantType: 'password', fields: expect.objectContaining({ username: expect.objectContaining({ required: true }) }) }],
      defaultGrantType: 'password',
      maxBodySize: 1_000,
    });
    expect(getTokenEndpoint(t.procedure.query(() => 1))).toBeUndefined();
  });

  it('takes a request without grant_type for the default grant', async () => {
    const caller = t.router({ token }).createCaller({});
    expect(await caller.token({ username: 'alice', password: 'x' })).toEqual({ access_token: 'alice', token_type: 'Bearer' });
    const refused = await caller.token({ grant_type: 'refresh_token', refresh_token: 'r' } as never).catch(getOAuth2Error);
    expect(tokenErrorResponse(refused).body).toEqual({ error: 'unsupported_grant_type', error_description: 'Supported grant types: password' });
  });

  it('refuses to build what cannot serve', () => {
    const builder = tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }) });
    expect(() => (builder as any).build()).toThrow('Register at least one grant');
    expect(() => (builder as any).grant('authorization_code', () => ({}))).toThrow('has no ready-made form');
    expect(() => tokenEndpoint(t.procedure, { authenticateClient: () => null, defaultGrantType: 'password' }).grant('refresh_token', () => ({ access_token: 'a', token_type: 'b' })).build()).toThrow(
      'defaultGrantType "password" is not a registered grant',
    );
  });

  it.each([
    { code: 'CONFLICT', status: 409 },
    { code: 'PRECONDITION_FAILED', status: 412 },
    { code: 'UNPROCESSABLE_CONTENT', status: 422 },
    { code: 'TOO_MANY_REQUESTS', status: 429 },
  ] as const)("answers a handler's $code as invalid_request with its own status $status, never as a fault of the server", ({ code, status }) => {
    expect(tokenErrorResponse(new TRPCError({ code, message: 'Try later' }))).toEqual({
      status,
      headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
      body: { error: 'invalid_request', error_description: 'Try later' },
    });
  });

  it.each(['INTERNAL_SERVER_ERROR', 'SERVICE_UNAVAILABLE'] as const)('answers a TRPCError %s as server_error, without its message', (code) => {
    expect(tokenErrorResponse(new TRPCError({ code, message: 'db password is hunter2' })).body).toEqual({ error: 'server_error', error_description: 'The request could not be completed' });
  });

  it('answers a fault of the server as 500 server_error, without its message', () => {
    expect(tokenErrorResponse(new Error('db password is hunter2'))).toEqual({
      status: 500,
      headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
      body: { error: 'server_error', error_description: 'The request could not be completed' },
    });
  });
});
