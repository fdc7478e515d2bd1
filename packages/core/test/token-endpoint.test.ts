import { TRPCError, initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { getOAuth2Error } from '../src/index.js';
import {
  authorizationCodeGrantForm,
  authorizationServerMetadata,
  defineGrantForm,
  isCodeVerifier,
  refreshTokenGrantForm,
  revocationEndpoint,
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

  // RFC 9700 §4.8.2: a code whose authorization request carried no challenge is never redeemed
  // with a verifier, which would let a stolen code pass as a PKCE one.
  it.each([null, undefined])('refuses any verifier when no challenge was stored (%s): the PKCE downgrade', async (stored) => {
    expect(await verifyCodeVerifier(verifier, stored)).toBe(false);
    expect(await verifyCodeVerifier(verifier, stored, { required: false })).toBe(false);
    expect(await verifyCodeVerifier('', stored, { required: false })).toBe(false);
  });

  it('refuses a request without PKCE unless PKCE is declared optional; never one that drops a stored challenge', async () => {
    expect(await verifyCodeVerifier(null, null)).toBe(false);
    expect(await verifyCodeVerifier(undefined, undefined)).toBe(false);
    expect(await verifyCodeVerifier(null, null, { required: false })).toBe(true);
    expect(await verifyCodeVerifier(undefined, null, { required: false })).toBe(true);
    expect(await verifyCodeVerifier(null, challenge, { required: false })).toBe(false);
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

describe('authorization server metadata (RFC 8414)', () => {
  const t = initTRPC.context<{ headers?: Record<string, string> }>().create();
  const authenticateClient = () => ({ id: null });
  const issue = () => ({ access_token: 'a', token_type: 'Bearer' });
  const passwordEndpoint = tokenEndpoint(t.procedure, { authenticateClient }).grant('password', issue).grant('refresh_token', issue).build();
  const codeEndpoint = tokenEndpoint(t.procedure, { authenticateClient })
    .grant('authorization_code', authorizationCodeGrantForm, issue)
    .grant('client_credentials', issue)
    .build();
  const revoke = revocationEndpoint(t.procedure, { authenticateClient, tokenTypes: ['refresh_token'], revoke: () => undefined });

  it('derives the grant types and client authentication methods from the built endpoints', () => {
    expect(
      authorizationServerMetadata({
        issuer: 'https://api.example/',
        token: { procedure: passwordEndpoint, url: 'https://api.example/token' },
        revocation: { procedure: revoke, url: 'https://api.example/revoke' },
      }),
    ).toEqual({
      // Exactly as given, a terminating `/` included: clients compare it with the issuer they asked (RFC 8414 §3.3).
      issuer: 'https://api.example/',
      token_endpoint: 'https://api.example/token',
      revocation_endpoint: 'https://api.example/revoke',
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      response_types_supported: [],
      grant_types_supported: ['password', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    });
  });

  it('advertises the code flow with S256 PKCE when the endpoint serves authorization_code', () => {
    const metadata = authorizationServerMetadata({
      issuer: 'https://as.example',
      token: { procedure: codeEndpoint, url: 'https://as.example/token' },
      authorizationEndpoint: 'https://as.example/authorize',
      clientAuthMethods: ['client_secret_basic'],
      scopes: ['items:read', 'items:write'],
      extra: { service_documentation: 'https://as.example/docs' },
    });
    expect(metadata).toEqual({
      issuer: 'https://as.example',
      authorization_endpoint: 'https://as.example/authorize',
      token_endpoint: 'https://as.example/token',
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['items:read', 'items:write'],
      service_documentation: 'https://as.example/docs',
    });
  });

  it.each([
    ['an issuer that is not https', { issuer: 'http://as.example' }, 'issuer must be an https: URL'],
    ['an issuer with a query', { issuer: 'https://as.example/?tenant=1' }, 'issuer must not have a query'],
    ['an issuer with a fragment', { issuer: 'https://as.example/#x' }, 'issuer must not have a fragment'],
    ['an issuer with an empty query', { issuer: 'https://as.example/?' }, 'issuer must not have a query'],
    ['an issuer with credentials', { issuer: 'https://user:pw@as.example' }, 'issuer must not carry credentials'],
    ['an issuer with a space around it', { issuer: ' https://as.example' }, 'issuer must not contain whitespace'],
    ['a token procedure that is not a token endpoint', { token: { procedure: t.procedure.query(() => 1), url: 'https://as.example/token' } }, 'token.procedure must be a token endpoint'],
    ['a revocation endpoint given as the token endpoint', { token: { procedure: revoke, url: 'https://as.example/token' } }, 'token.procedure must be a token endpoint'],
    ['a token endpoint given as the revocation endpoint', { revocation: { procedure: passwordEndpoint, url: 'https://as.example/r' } }, 'revocation.procedure must be a revocation endpoint'],
    ['the code grant without an authorization endpoint', { token: { procedure: codeEndpoint, url: 'https://as.example/token' } }, 'authorizationEndpoint is required'],
    ['a client authentication method the endpoint cannot read', { clientAuthMethods: ['private_key_jwt'] }, 'cannot read private_key_jwt'],
    ['an extra member that replaces a derived one', { extra: { grant_types_supported: ['implicit'] } }, 'extra.grant_types_supported would replace'],
    ['a scope with a space in it (RFC 6749 §3.3)', { scopes: ['items:read', 'a b'] }, 'Invalid scope name "a b"'],
    ['an empty scope', { scopes: [''] }, 'Invalid scope name ""'],
    ['a scope with a quote', { scopes: ['x"y'] }, 'Invalid scope name "x\\"y"'],
    ['a scope outside ASCII', { scopes: ['é'] }, 'Invalid scope name "é"'],
  ])('refuses %s when it is built', (_name, override, message) => {
    const options = { issuer: 'https://as.example', token: { procedure: passwordEndpoint, url: 'https://as.example/token' }, ...override };
    expect(() => authorizationServerMetadata(options as never)).toThrow(message);
  });

  // Built once and served to every client, as the protected resource metadata is: one request's
  // code cannot change what the others are served (docs/contract.md#authorization-server-metadata).
  it('is frozen, deeply, extra members included: a mutation throws and changes nothing', () => {
    const metadata = authorizationServerMetadata({
      issuer: 'https://as.example',
      token: { procedure: codeEndpoint, url: 'https://as.example/token' },
      revocation: { procedure: revoke, url: 'https://as.example/revoke' },
      authorizationEndpoint: 'https://as.example/authorize',
      scopes: ['items:read'],
      extra: { mtls_endpoint_aliases: { token_endpoint: 'https://mtls.as.example/token' } },
    });
    const before = structuredClone(metadata);
    const writable = metadata as Record<string, unknown>;
    const attempts: [string, () => unknown][] = [
      ['replace the issuer', () => (writable.issuer = 'https://evil.example')],
      ['add a member', () => (writable.registration_endpoint = 'https://evil.example/register')],
      ['delete a member', () => delete writable.revocation_endpoint],
      ['add a grant', () => (metadata.grant_types_supported as string[]).push('implicit')],
      ['empty the authentication methods', () => (metadata.token_endpoint_auth_methods_supported as string[]).splice(0)],
      ['change the PKCE method', () => ((metadata.code_challenge_methods_supported as unknown as string[])[0] = 'plain')],
      ['add a scope', () => (metadata.scopes_supported as string[]).push('admin')],
      ['change an extra member', () => ((metadata.mtls_endpoint_aliases as Record<string, string>).token_endpoint = 'https://evil.example/token')],
    ];
    for (const [name, attempt] of attempts) expect(attempt, name).toThrow(TypeError);
    expect(metadata).toEqual(before);
  });

  it('accepts http: on a loopback host, for development', () => {
    expect(authorizationServerMetadata({ issuer: 'http://127.0.0.1:3000', token: { procedure: passwordEndpoint, url: 'http://127.0.0.1:3000/token' } }).issuer).toBe(
      'http://127.0.0.1:3000',
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

  // Every grant's form reads grant_type, scope, client_id and client_secret by its own rules: a
  // grant naming one again would have it read otherwise than defined (a required client_id
  // parsed as null, typed as text), so the definition is refused.
  it.each([
    ['a required client_id', { required: { device_code: {}, client_id: {} } }, 'client_id'],
    ['an optional client_secret', { required: { device_code: {} }, optional: { client_secret: { secret: true } } }, 'client_secret'],
    ['a required scope', { required: { scope: {} } }, 'scope'],
    ['grant_type', { required: { grant_type: {} } }, 'grant_type'],
  ])('refuses to define a grant whose own fields name %s', (_name, fields, field) => {
    expect(() => defineGrantForm('urn:ietf:params:oauth:grant-type:device_code', fields as never)).toThrow(
      new TypeError(`defineGrantForm: ${field} is read for every grant: leave it out of the grant's own fields`),
    );
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
      fields: ['grant_type', 'username', 'password', 'scope', 'client_id', 'client_secret'],
      defaultGrantType: 'password',
      maxBodySize: 1_000,
      dpop: null,
    });
    expect(getTokenEndpoint(t.procedure.query(() => 1))).toBeUndefined();
  });

  // What the input type refuses (packages/core/test/types/token-endpoint.test-d.ts), the runtime refuses too.
  it('refuses a request without grant_type when there is no default, and a grant_type spelled otherwise', async () => {
    const strict = tokenEndpoint(t.procedure, { authenticateClient: () => ({ id: null }) })
      .grant('password', ({ form }) => ({ access_token: form.username, token_type: 'Bearer' }))
      .build();
    const caller = t.router({ token: strict }).createCaller({});
    const bodyOf = (input: unknown) => caller.token(input as never).then(() => undefined, (error: unknown) => tokenErrorResponse(error).body);
    expect(await bodyOf({ username: 'alice', password: 'x' })).toEqual({ error: 'invalid_request', error_description: 'grant_type: field required' });
    expect(await bodyOf({ grant_type: 'Password', username: 'alice', password: 'x' })).toEqual({ error: 'unsupported_grant_type', error_description: 'Supported grant types: password' });
    expect(await caller.token({ grant_type: 'password', username: 'alice', password: 'x' })).toEqual({ access_token: 'alice', token_type: 'Bearer' });
  });

  it('takes a request without grant_type for the default grant', async () => {
    const caller = t.router({ token }).createCaller({});
    expect(await caller.token({ username: 'alice', password: 'x' })).toEqual({ access_token: 'alice', token_type: 'Bearer' });
    const refused = await caller.token({ grant_type: 'refresh_token', refresh_token: 'r' } as never).catch(getOAuth2Error);
    expect(tokenErrorResponse(refused).body).toEqual({ error: 'unsupported_grant_type', error_description: 'Supported grant types: password' });
  });

  // The input lets any value through (documented as text) so that the endpoint itself refuses
  // it as RFC 6749 §5.2 says, never tRPC's input check with a bare BAD_REQUEST.
  it.each<[string, unknown, string]>([
    ['a field that is not text', { username: 'alice', password: 5 }, 'password: must be text'],
    ['a grant_type that is not text', { grant_type: ['password'], username: 'alice', password: 'x' }, 'grant_type: must be text'],
    ['a file part', (() => { const form = new FormData(); form.set('username', 'alice'); form.set('password', new Blob(['x'])); return form; })(), 'password: must be text'],
    ['a body that is not an object', 'username=alice', 'username: field required; password: field required'],
    ['a body that is null', null, 'username: field required; password: field required'],
  ])('refuses %s as invalid_request, with its stable code', async (_name, input, description) => {
    const caller = t.router({ token }).createCaller({});
    const refused = await caller.token(input as never).then(() => undefined, getOAuth2Error);
    expect({ code: refused?.code, response: tokenErrorResponse(refused).body }).toEqual({
      code: 'ERR_INVALID_REQUEST',
      response: { error: 'invalid_request', error_description: description },
    });
  });

  it('refuses a revocation request whose token is not text as invalid_request', async () => {
    const revoke = revocationEndpoint(t.procedure, { authenticateClient: () => ({ id: null }), tokenTypes: ['refresh_token'], revoke: () => undefined });
    const caller = t.router({ revoke }).createCaller({});
    for (const [input, description] of [[{ token: 5 }, 'token: must be text'], [[], 'token: field required']] as const) {
      const refused = await caller.revoke(input as never).then(() => undefined, getOAuth2Error);
      expect({ code: refused?.code, description: refused?.message }).toEqual({ code: 'ERR_INVALID_REQUEST', description });
    }
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

// A limit that is not a whole number of bytes would refuse no body (NaN, read from a missing
// setting) or every one: refused where the endpoint is defined (docs/contract.md#body-limits).
describe("an endpoint's maxBodySize", () => {
  const t = initTRPC.context<{ headers?: Record<string, string> }>().create();
  const authenticateClient = () => ({ id: null });
  const issue = () => ({ access_token: 'a', token_type: 'Bearer' });

  it.each([Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY])('refuses %s', (maxBodySize) => {
    expect(() => tokenEndpoint(t.procedure, { authenticateClient, maxBodySize }).grant('password', issue).build()).toThrow(/maxBodySize must be a whole number of bytes/);
    expect(() => revocationEndpoint(t.procedure, { authenticateClient, tokenTypes: ['refresh_token'], revoke: () => undefined, maxBodySize })).toThrow(
      /maxBodySize must be a whole number of bytes/,
    );
  });

  it.each([0, 2_048, undefined])('declares %s as given', (maxBodySize) => {
    const endpoint = tokenEndpoint(t.procedure, { authenticateClient, maxBodySize }).grant('password', issue).build();
    expect(getTokenEndpoint(endpoint)?.maxBodySize).toBe(maxBodySize);
  });
});
