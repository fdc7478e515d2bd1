import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { tokenEndpoint } from '../src/token-endpoint/index.js';
import { OAuth2Error, getOAuth2Error, oauth2ResponseMeta } from '../src/index.js';
import { bearerNotAuthenticatedError, insufficientScopeError, insufficientUserAuthenticationError, invalidTokenError } from '../src/errors-entry.js';
import { dpopNotAuthenticatedError } from '../src/dpop/index.js';
import { CHALLENGE_TABLE, METADATA_URL, withResourceMetadata } from './support/challenge-table.js';

describe('RFC 6750 errors', () => {
  it.each([
    { description: undefined, challenge: 'Bearer error="invalid_token"', message: 'Could not validate credentials' },
    { description: 'The access token expired', challenge: 'Bearer error="invalid_token", error_description="The access token expired"', message: 'The access token expired' },
    { description: 'bad "quote" \\ and\nnewline', challenge: 'Bearer error="invalid_token", error_description="bad quote  andnewline"', message: 'bad quote  andnewline' },
  ])('invalidTokenError($description)', ({ description, challenge, message }) => {
    const error = invalidTokenError(description);
    expect(error.code).toBe('UNAUTHORIZED');
    expect(error.message).toBe(message);
    expect(getOAuth2Error(error)).toMatchObject({ code: 'ERR_INVALID_TOKEN', status: 401, error: 'invalid_token', headers: { 'WWW-Authenticate': challenge } });
  });

  it('insufficientScopeError names every required scope', () => {
    const error = insufficientScopeError(['me', 'items']);
    expect(error.code).toBe('FORBIDDEN');
    expect(getOAuth2Error(error)?.headers).toEqual({ 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="me items"' });
  });

  // An application may call the factories itself, with scopes it did not declare anywhere.
  it.each([['a\r\nSet-Cookie: s=1'], ['items x'], ['a"b'], ['a\\b'], [''], ['é']])('insufficientScopeError, bearerNotAuthenticatedError and dpopNotAuthenticatedError refuse the scope %j', (scope) => {
    expect(() => insufficientScopeError(['me', scope])).toThrow(new TypeError('scope must be scope tokens'));
    expect(() => bearerNotAuthenticatedError({ scope: ['me', scope] })).toThrow(new TypeError('scope must be scope tokens'));
    for (const mode of ['allowed', 'required'] as const) {
      expect(() => dpopNotAuthenticatedError(mode, ['ES256'], { scope: ['me', scope] })).toThrow(new TypeError('scope must be scope tokens'));
    }
  });

  it('insufficientScopeError of no scope names none', () => {
    expect(getOAuth2Error(insufficientScopeError([]))?.headers).toEqual({ 'WWW-Authenticate': 'Bearer error="insufficient_scope"' });
  });
});

// docs/contract.md#challenges: every challenge, from its factory, without and with the metadata URL.
describe('the challenges of a resource server', () => {
  it.each(CHALLENGE_TABLE)('$name: $challenge', ({ make, status, code, challenge }) => {
    expect(getOAuth2Error(make())).toMatchObject({ status, code, headers: { 'WWW-Authenticate': challenge } });
  });

  it.each(CHALLENGE_TABLE)('$name, with resource_metadata (RFC 9728 §5.1)', (row) => {
    expect(getOAuth2Error(row.make({ resourceMetadata: METADATA_URL }))).toMatchObject({
      status: row.status,
      code: row.code,
      headers: { 'WWW-Authenticate': withResourceMetadata(row, METADATA_URL) },
    });
  });

  it.each(['not a url', 'https://api.example/a"b', 'https://api.example/a b', 'https://api.example/a\\b'])(
    'refuses a resource_metadata a challenge cannot carry: %s',
    (url) => {
      for (const row of CHALLENGE_TABLE) expect(() => row.make({ resourceMetadata: url })).toThrow(TypeError);
    },
  );

  it.each([
    ['no requirement', {}],
    ['an empty acr list', { acrValues: [] }],
    ['an acr with a space', { acrValues: ['a b'] }],
    ['a negative max_age', { maxAge: -1 }],
    ['a fractional max_age', { maxAge: 1.5 }],
  ])('refuses a step-up with %s', (_name, requirement) => {
    expect(() => insufficientUserAuthenticationError(requirement)).toThrow(TypeError);
  });
});

describe('oauth2ResponseMeta', () => {
  const challenge = new OAuth2Error({ code: 'ERR_NOT_AUTHENTICATED', status: 401, message: 'x', headers: { 'WWW-Authenticate': 'Bearer' } });

  it.each([
    { name: 'no errors', errors: [], inner: undefined, expected: { headers: {} } },
    { name: 'an OAuth2 error', errors: [challenge.toTRPCError()], inner: undefined, expected: { headers: { 'WWW-Authenticate': 'Bearer' } } },
    { name: 'an unrelated error', errors: [new Error('boom')], inner: undefined, expected: { headers: {} } },
    {
      name: 'an inner responseMeta returning Headers',
      errors: [challenge.toTRPCError()],
      inner: () => ({ status: 200, headers: new Headers({ 'x-trace': '1' }) }),
      expected: { status: 200, headers: { 'x-trace': '1', 'WWW-Authenticate': 'Bearer' } },
    },
    {
      name: 'an inner responseMeta that already set the challenge',
      errors: [challenge.toTRPCError()],
      inner: () => ({ headers: { 'WWW-Authenticate': 'Custom' } }),
      expected: { headers: { 'WWW-Authenticate': 'Custom' } },
    },
    {
      name: 'an inner responseMeta that set the challenge in lower case',
      errors: [challenge.toTRPCError()],
      inner: () => ({ headers: { 'www-authenticate': 'Custom' } }),
      expected: { headers: { 'www-authenticate': 'Custom' } },
    },
    {
      name: 'two calls refused for different scopes',
      errors: [insufficientScopeError(['a']), insufficientScopeError(['b', 'a'])],
      inner: undefined,
      expected: { headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="a b"' } },
    },
    {
      name: 'two calls refused for scopes, with the same metadata URL',
      errors: [insufficientScopeError(['a'], { resourceMetadata: 'https://m.example/x' }), insufficientScopeError(['b'], { resourceMetadata: 'https://m.example/x' })],
      inner: undefined,
      expected: { headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="a b", resource_metadata="https://m.example/x"' } },
    },
    {
      name: 'two calls refused for scopes by readers of different metadata URLs (the first call\'s)',
      errors: [insufficientScopeError(['a'], { resourceMetadata: 'https://m.example/x' }), insufficientScopeError(['b'], { resourceMetadata: 'https://m.example/y' })],
      inner: undefined,
      expected: { headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="a", resource_metadata="https://m.example/x"' } },
    },
    {
      name: 'a refusal for scopes and one of another kind (the first call\'s)',
      errors: [insufficientScopeError(['a']), invalidTokenError('bad'), insufficientScopeError(['b'])],
      inner: undefined,
      expected: { headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope", scope="a"' } },
    },
    {
      name: "a refusal for scopes whose challenge an application's factory wrote otherwise (the first call's)",
      errors: [
        new OAuth2Error({ code: 'ERR_INSUFFICIENT_SCOPE', status: 403, message: 'x', headers: { 'WWW-Authenticate': 'Bearer error=insufficient_scope' } }).toTRPCError(),
        insufficientScopeError(['b']),
      ],
      inner: undefined,
      expected: { headers: { 'WWW-Authenticate': 'Bearer error=insufficient_scope' } },
    },
  ])('with $name', ({ errors, inner, expected }) => {
    expect(oauth2ResponseMeta(inner)({ errors })).toEqual(expected);
  });

  it("puts a token endpoint's Cache-Control and Pragma over an inner responseMeta's, in any case", () => {
    const endpoint = tokenEndpoint(initTRPC.create().procedure, { authenticateClient: () => ({ id: null }) })
      .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' }))
      .build();
    const meta = oauth2ResponseMeta((_: { errors: readonly unknown[]; info: { calls: { procedure: unknown }[] } }) => ({
      headers: { 'Cache-Control': 'public, max-age=60', PRAGMA: 'x', 'x-trace': '1' },
    }));
    expect(meta({ errors: [], info: { calls: [{ procedure: endpoint }] } })).toEqual({ headers: { 'x-trace': '1', 'cache-control': 'no-store', pragma: 'no-cache' } });
  });
});

describe('OAuth2Error across copies of the package', () => {
  it('is recognised when built by another copy (a verifier bundling its own), and only then', async () => {
    const { OAuth2Error: Dist } = await import('@trpc-oauth2/core');
    const { invalidTokenError: distInvalidToken } = await import('@trpc-oauth2/core/errors');
    const { OAuth2Error: Src, getOAuth2Error: srcGet } = await import('../src/index.js');
    expect(Dist).not.toBe(Src);
    const foreign = distInvalidToken('The access token expired');
    expect(foreign.cause instanceof Src).toBe(true);
    expect(srcGet(foreign)).toMatchObject({ code: 'ERR_INVALID_TOKEN', status: 401 });
    expect(new Error('x') instanceof Src).toBe(false);
    expect({ code: 'ERR_INVALID_TOKEN' } instanceof Src).toBe(false);
  });
});
