import { initTRPC, type inferRouterInputs, type inferRouterOutputs, type TRPCError } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import { type ClientCredentials, type PasswordRequestForm } from '../../src/index.js';
import type { TypeError } from '../../src/type-error.js';
import type { OAuth2ErrorCode } from '../../src/errors-entry.js';
import {
  TOKEN_RESPONSE_HEADERS,
  authorizationCodeGrantForm,
  authorizationServerMetadata,
  defineGrantForm,
  oauth2ErrorData,
  passwordGrantForm,
  revocationEndpoint,
  s256CodeChallenge,
  tokenEndpoint,
  tokenError,
  tokenErrorResponse,
  verifyCodeVerifier,
  type AuthorizationServerMetadata,
  type ClientAuthMethod,
  type GrantHandlerOptions,
  type OAuth2ErrorData,
  type RevocationEndpointProcedure,
  type RevocationRequestFormInput,
  type TokenErrorCode,
  type TokenErrorResponse,
  type TokenRequestCall,
  type AuthorizationCodeRequestForm,
  type GrantForm,
  type TokenResponse,
  type ClientCredentialsRequestForm,
  type RefreshTokenRequestForm,
  type RevocationRequestForm,
} from '../../src/token-endpoint/index.js';
import { queryFieldsRefusal, tokenRefusalInPlace, type HeadersLike } from '../../src/protocol.js';

// docs/contract.md#token-responses: each grant handler is typed by its grant's form.

const t = initTRPC.context<{ tenant: string }>().create();
const authenticateClient = (credentials: ClientCredentials) => (credentials.method === 'none' ? null : { id: credentials.clientId!, tier: 'gold' as const });

const token = tokenEndpoint(t.procedure, { authenticateClient })
  .grant('password', ({ form, client, ctx }) => {
    expectTypeOf(form).toEqualTypeOf<PasswordRequestForm>();
    expectTypeOf(client).toEqualTypeOf<{ id: string; tier: 'gold' }>();
    expectTypeOf(ctx.tenant).toBeString();
    return { access_token: form.username, token_type: 'Bearer', refresh_token: 'r' };
  })
  .grant('refresh_token', ({ form }) => {
    expectTypeOf(form).toEqualTypeOf<RefreshTokenRequestForm>();
    expectTypeOf(form.refresh_token).toBeString();
    expectTypeOf(form.scopes).toEqualTypeOf<string[]>();
    return { access_token: form.refresh_token, token_type: 'Bearer', refresh_token: 'r' };
  })
  .grant('client_credentials', ({ form }) => {
    expectTypeOf(form).toEqualTypeOf<ClientCredentialsRequestForm>();
    expectTypeOf(form.client_id).toEqualTypeOf<string | null>();
    return { access_token: 'a', token_type: 'Bearer', refresh_token: 'r' };
  })
  .grant('authorization_code', authorizationCodeGrantForm, ({ form }) => {
    expectTypeOf(form).toEqualTypeOf<AuthorizationCodeRequestForm>();
    expectTypeOf(form.code).toBeString();
    expectTypeOf(form.code_verifier).toEqualTypeOf<string | null>();
    expectTypeOf(form.redirect_uri).toEqualTypeOf<string | null>();
    return { access_token: form.code, token_type: 'Bearer', refresh_token: 'r' };
  })
  .build();

const router = t.router({ token });
type Inputs = inferRouterInputs<typeof router>['token'];
type Outputs = inferRouterOutputs<typeof router>['token'];
// What a client may send: any registered grant's request, naming its grant_type exactly as the
// endpoint matches it (RFC 6749: grant_type is required when there is no defaultGrantType).
expectTypeOf<{ grant_type: 'password'; username: string; password: string }>().toExtend<Inputs>();
expectTypeOf<{ grant_type: 'password'; username: string; password: string; scope: string; client_id: null }>().toExtend<Inputs>();
expectTypeOf<{ grant_type: 'refresh_token'; refresh_token: string }>().toExtend<Inputs>();
expectTypeOf<{ grant_type: 'client_credentials' }>().toExtend<Inputs>();
expectTypeOf<{ grant_type: 'authorization_code'; code: string; code_verifier: string }>().toExtend<Inputs>();
expectTypeOf<{ grant_type: 'refresh_token' }>().not.toExtend<Inputs>();
// The runtime refuses these (invalid_request "grant_type: field required", unsupported_grant_type): so do the types.
expectTypeOf<{ username: string; password: string }>().not.toExtend<Inputs>();
expectTypeOf<{ grant_type: null; username: string; password: string }>().not.toExtend<Inputs>();
expectTypeOf<{ grant_type: 'Password'; username: string; password: string }>().not.toExtend<Inputs>();
expectTypeOf<{ grant_type: string; username: string; password: string }>().not.toExtend<Inputs>();
expectTypeOf<{ grant_type: 'password'; refresh_token: string }>().not.toExtend<Inputs>();
// The output is what the handlers return: every handler above returns a refresh token.
expectTypeOf<Outputs['refresh_token']>().toEqualTypeOf<string>();
const caller = router.createCaller({ tenant: 't' });
// @ts-expect-error without defaultGrantType, a request names its grant
void caller.token({ username: 'alice', password: 'wonderland' });
// @ts-expect-error grant_type is matched exactly: 'Password' is no registered grant
void caller.token({ grant_type: 'Password', username: 'alice', password: 'wonderland' });
void caller.token({ grant_type: 'password', username: 'alice', password: 'wonderland' });
// A form body is read as it comes: its grant_type is checked at run time.
void caller.token(new URLSearchParams({ username: 'alice', password: 'wonderland' }));

// With defaultGrantType, that grant's requests (and only its) may leave grant_type out.
const withDefault = t.router({
  token: tokenEndpoint(t.procedure, { authenticateClient, defaultGrantType: 'password' })
    .grant('password', ({ form }) => ({ access_token: form.username, token_type: 'Bearer' }))
    .grant('refresh_token', ({ form }) => ({ access_token: form.refresh_token, token_type: 'Bearer' }))
    .build(),
});
type DefaultInputs = inferRouterInputs<typeof withDefault>['token'];
expectTypeOf<{ username: string; password: string }>().toExtend<DefaultInputs>();
expectTypeOf<{ grant_type: null; username: string; password: string }>().toExtend<DefaultInputs>();
expectTypeOf<{ grant_type: 'password'; username: string; password: string }>().toExtend<DefaultInputs>();
expectTypeOf<{ grant_type: 'refresh_token'; refresh_token: string }>().toExtend<DefaultInputs>();
expectTypeOf<{ refresh_token: string }>().not.toExtend<DefaultInputs>();
expectTypeOf<{ grant_type: 'Password'; username: string; password: string }>().not.toExtend<DefaultInputs>();
void withDefault.createCaller({ tenant: 't' }).token({ username: 'alice', password: 'wonderland' });
// @ts-expect-error only the default grant's requests may leave grant_type out
void withDefault.createCaller({ tenant: 't' }).token({ refresh_token: 'r' });

// A defaultGrantType no grant is registered for builds no procedure: a readable type error (and `.build()` throws).
const unregistered = () => tokenEndpoint(t.procedure, { authenticateClient, defaultGrantType: 'password' }).grant('refresh_token', () => ({ access_token: 'a', token_type: 'b' })).build();
expectTypeOf<ReturnType<typeof unregistered>>().toEqualTypeOf<TypeError<'defaultGrantType "password" is not a registered grant'>>();
// A defaultGrantType known only as a string may name any grant: every grant's request may leave grant_type out.
const someDefault: string = 'password';
const widened = t.router({
  token: tokenEndpoint(t.procedure, { authenticateClient, defaultGrantType: someDefault })
    .grant('password', () => ({ access_token: 'a', token_type: 'Bearer' }))
    .build(),
});
expectTypeOf<{ username: string; password: string }>().toExtend<inferRouterInputs<typeof widened>['token']>();

// A grant registered with its form: its request names its grant_type too, whatever the form's input type lets through.
const looseForm: GrantForm<'urn:example:loose', { grant_type: 'urn:example:loose' }, { grant_type?: string | null; assertion: string }> = {
  grantType: 'urn:example:loose',
  schema: null as never,
  fields: {},
};
const custom = t.router({
  token: tokenEndpoint(t.procedure, { authenticateClient })
    .grant('urn:example:loose', looseForm, () => ({ access_token: 'a', token_type: 'Bearer' }))
    .grant('password', passwordGrantForm, () => ({ access_token: 'a', token_type: 'Bearer' }))
    .build(),
});
type CustomInputs = inferRouterInputs<typeof custom>['token'];
expectTypeOf<{ grant_type: 'urn:example:loose'; assertion: string }>().toExtend<CustomInputs>();
expectTypeOf<{ grant_type: 'password'; username: string; password: string }>().toExtend<CustomInputs>();
expectTypeOf<{ assertion: string }>().not.toExtend<CustomInputs>();
expectTypeOf<{ username: string; password: string }>().not.toExtend<CustomInputs>();

// TokenResponse: TypeScript has no integer type, so expires_in is a number, documented as whole
// seconds (0 to 2^31 - 1) and checked at run time (anything else is answered server_error).
expectTypeOf<TokenResponse['expires_in']>().toEqualTypeOf<number | undefined>();
tokenEndpoint(t.procedure, { authenticateClient }).grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer', expires_in: Math.floor(899.5) }));

// @ts-expect-error a grant is registered once
tokenEndpoint(t.procedure, { authenticateClient }).grant('password', () => ({ access_token: 'a', token_type: 'b' })).grant('password', () => ({ access_token: 'a', token_type: 'b' }));
// @ts-expect-error a grant without a ready-made form needs its form
tokenEndpoint(t.procedure, { authenticateClient }).grant('authorization_code', () => ({ access_token: 'a', token_type: 'b' }));
// @ts-expect-error a form serves only its own grant_type
tokenEndpoint(t.procedure, { authenticateClient }).grant('device_code', authorizationCodeGrantForm, () => ({ access_token: 'a', token_type: 'b' }));
// @ts-expect-error a handler answers RFC 6749 §5.1: access_token and token_type
tokenEndpoint(t.procedure, { authenticateClient }).grant('password', () => ({ token: 'a' }));
// A builder without a grant builds no procedure: a readable type error.
expectTypeOf(tokenEndpoint(t.procedure, { authenticateClient }).build()).toExtend<string>();

// A grant of its own form: fields typed from the definition.
const device = defineGrantForm('urn:ietf:params:oauth:grant-type:device_code', { required: { device_code: {} }, optional: { extra: {} } });
tokenEndpoint(t.procedure, { authenticateClient }).grant('urn:ietf:params:oauth:grant-type:device_code', device, ({ form }) => {
  expectTypeOf(form.device_code).toBeString();
  expectTypeOf(form.extra).toEqualTypeOf<string | null>();
  expectTypeOf(form.grant_type).toEqualTypeOf<'urn:ietf:params:oauth:grant-type:device_code'>();
  return { access_token: 'a', token_type: 'Bearer' };
});

// A grant's own fields cannot name one every grant reads: a readable type error (and a TypeError).
// @ts-expect-error client_id is read for every grant
defineGrantForm('urn:ietf:params:oauth:grant-type:device_code', { required: { device_code: {}, client_id: {} } });
// @ts-expect-error scope is read for every grant
defineGrantForm('urn:ietf:params:oauth:grant-type:device_code', { required: { device_code: {} }, optional: { scope: {} } });

// The revocation endpoint: its form and hint typed.
revocationEndpoint(t.procedure, {
  authenticateClient,
  tokenTypes: ['refresh_token'],
  revoke: ({ form, tokenTypeHint, client }) => {
    expectTypeOf(form).toEqualTypeOf<RevocationRequestForm>();
    expectTypeOf(tokenTypeHint).toEqualTypeOf<'refresh_token' | null>();
    expectTypeOf(client.tier).toEqualTypeOf<'gold'>();
  },
});

// A builder without a grant: the message itself, not just any string.
expectTypeOf(tokenEndpoint(t.procedure, { authenticateClient }).build()).toEqualTypeOf<TypeError<'Register at least one grant with .grant() before .build()'>>();

// The output is the union of what the handlers return.
const mixed = t.router({
  token: tokenEndpoint(t.procedure, { authenticateClient })
    .grant('password', () => ({ access_token: 'a', token_type: 'Bearer' as const, refresh_token: 'r' }))
    .grant('client_credentials', () => ({ access_token: 'a', token_type: 'Bearer' as const, expires_in: 900 }))
    .build(),
});
expectTypeOf<inferRouterOutputs<typeof mixed>['token']>().toEqualTypeOf<
  { access_token: string; token_type: 'Bearer'; refresh_token: string } | { access_token: string; token_type: 'Bearer'; expires_in: number }
>();

// Each handler also gets the client's credentials as read, and the DPoP proof (when the endpoint takes DPoP).
tokenEndpoint(t.procedure, { authenticateClient }).grant('password', (opts) => {
  expectTypeOf(opts).toEqualTypeOf<GrantHandlerOptions<PasswordRequestForm, { tenant: string }, { id: string; tier: 'gold' }>>();
  expectTypeOf(opts.credentials).toEqualTypeOf<ClientCredentials>();
  return { access_token: 'a', token_type: 'Bearer' };
});
// authenticateClient is told the ctx and the grant, and answers the client, or null / undefined to refuse it.
tokenEndpoint(t.procedure, {
  authenticateClient: async (credentials, { ctx, grantType }) => {
    expectTypeOf(ctx).toEqualTypeOf<{ tenant: string }>();
    expectTypeOf(grantType).toEqualTypeOf<string>();
    return credentials.clientId === null ? undefined : { id: credentials.clientId };
  },
}).grant('client_credentials', ({ client }) => {
  expectTypeOf(client).toEqualTypeOf<{ id: string }>();
  return { access_token: client.id, token_type: 'Bearer' };
});
// `around` wraps every request with the procedure's ctx, and must hand on the response.
tokenEndpoint(t.procedure, {
  authenticateClient,
  around: async (call, next) => {
    expectTypeOf(call).toEqualTypeOf<TokenRequestCall<{ tenant: string }>>();
    expectTypeOf(call.ctx.tenant).toEqualTypeOf<string>();
    return next();
  },
});
// @ts-expect-error around answers a token response
tokenEndpoint(t.procedure, { authenticateClient, around: async () => 'ok' });
// @ts-expect-error a body limit is a number of bytes
tokenEndpoint(t.procedure, { authenticateClient, maxBodySize: '1mb' });
// @ts-expect-error a client is authenticated: authenticateClient is required
tokenEndpoint(t.procedure, {});

// The refusals: RFC 6749 §5.2's codes (and RFC 7009's, RFC 9449's), nothing else.
expectTypeOf<TokenErrorCode>().toEqualTypeOf<
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'unsupported_token_type'
  | 'invalid_dpop_proof'
  | 'use_dpop_nonce'
>();
expectTypeOf(tokenError('invalid_grant', 'The code expired')).toEqualTypeOf<TRPCError>();
// @ts-expect-error a server fault is thrown as any error, never as a refusal of the request
tokenError('server_error', 'boom');
// @ts-expect-error codes are lower case, as on the wire
tokenError('INVALID_GRANT', 'The code expired');
expectTypeOf(tokenErrorResponse(new Error())).toEqualTypeOf<TokenErrorResponse>();
expectTypeOf(oauth2ErrorData(new Error())).toEqualTypeOf<OAuth2ErrorData | null>();
expectTypeOf<OAuth2ErrorData['code']>().toEqualTypeOf<OAuth2ErrorCode>();
// What a client answers a refusal with where no header reaches it (a subscription, a streamed batch).
expectTypeOf<OAuth2ErrorData['challenge']>().toEqualTypeOf<string | null>();
expectTypeOf<OAuth2ErrorData['dpopNonce']>().toEqualTypeOf<string | null>();
expectTypeOf(TOKEN_RESPONSE_HEADERS).toEqualTypeOf<Readonly<Record<'cache-control' | 'pragma', string>>>();

// PKCE: answers, never throws.
expectTypeOf(verifyCodeVerifier).returns.toEqualTypeOf<Promise<boolean>>();
expectTypeOf(s256CodeChallenge).returns.toEqualTypeOf<Promise<string>>();

// The revocation endpoint: the hint is one of the declared token types.
revocationEndpoint(t.procedure, {
  authenticateClient,
  tokenTypes: ['refresh_token', 'access_token'],
  revoke: ({ tokenTypeHint }) => {
    expectTypeOf(tokenTypeHint).toEqualTypeOf<'refresh_token' | 'access_token' | null>();
  },
});
const revocation = t.router({ revoke: revocationEndpoint(t.procedure, { authenticateClient, tokenTypes: ['refresh_token'], revoke: () => undefined }) });
expectTypeOf(revocation.revoke).toEqualTypeOf<RevocationEndpointProcedure<object>>();
expectTypeOf<inferRouterInputs<typeof revocation>['revoke']>().toEqualTypeOf<RevocationRequestFormInput | FormData | URLSearchParams>();
expectTypeOf<inferRouterOutputs<typeof revocation>['revoke']>().toEqualTypeOf<Record<string, never>>();
// @ts-expect-error revoke answers nothing (RFC 7009: 200 with an empty body)
revocationEndpoint(t.procedure, { authenticateClient, tokenTypes: ['refresh_token'], revoke: () => ({ revoked: true }) });

// Authorization server metadata (RFC 8414): the client authentication methods the endpoint reads.
expectTypeOf<ClientAuthMethod>().toEqualTypeOf<'client_secret_basic' | 'client_secret_post' | 'none'>();
expectTypeOf(authorizationServerMetadata({ issuer: 'https://as.example', token: { procedure: token, url: 'https://as.example/token' } })).toEqualTypeOf<AuthorizationServerMetadata>();
expectTypeOf<AuthorizationServerMetadata['code_challenge_methods_supported']>().toEqualTypeOf<readonly ['S256'] | undefined>();
expectTypeOf<AuthorizationServerMetadata['dpop_signing_alg_values_supported']>().toEqualTypeOf<readonly string[] | undefined>();
// @ts-expect-error the metadata is frozen: what it advertises is not changed in place
authorizationServerMetadata({ issuer: 'https://as.example', token: { procedure: token, url: 'https://as.example/token' } }).grant_types_supported.push('implicit');
// @ts-expect-error private_key_jwt is a method the endpoint cannot read
authorizationServerMetadata({ issuer: 'https://as.example', token: { procedure: token, url: 'https://as.example/token' }, clientAuthMethods: ['private_key_jwt'] });
// @ts-expect-error the token endpoint is required
authorizationServerMetadata({ issuer: 'https://as.example' });

// `around` answers what `next` answered, or throws: the output type is the handlers' answers, so an
// answer of its own would reach the client without what the type promises (docs/contract.md#token-responses).
{
  const throttled = t.router({
    token: tokenEndpoint(t.procedure, { authenticateClient, around: async (_call, next) => next() })
      .grant('password', () => ({ access_token: 'a', token_type: 'Bearer', refresh_token: 'r' }))
      .build(),
  });
  expectTypeOf<inferRouterOutputs<typeof throttled>['token']['refresh_token']>().toEqualTypeOf<string>();
  // A wrapper that adds members keeps the handlers' answer as its own.
  tokenEndpoint(t.procedure, { authenticateClient, around: async (_call, next) => ({ ...(await next()), expires_in: 60 }) });
  // A wrapper that throws after the grant is one too.
  tokenEndpoint(t.procedure, {
    authenticateClient,
    around: async (_call, next) => {
      await next();
      throw new Error('the throttle store is down');
    },
  });
  // @ts-expect-error an answer of its own lacks what the handlers return (here: refresh_token)
  tokenEndpoint(t.procedure, { authenticateClient, around: async () => ({ access_token: 'cached', token_type: 'Bearer' }) });
}

// A client check that refuses with `false` (a comparison): the handlers' client never is `false`
// (docs/contract.md#client-authentication).
tokenEndpoint(t.procedure, { authenticateClient: (credentials: ClientCredentials) => credentials.clientSecret === 's3cret' }).grant('password', ({ client }) => {
  expectTypeOf(client).toEqualTypeOf<true>();
  return { access_token: 'a', token_type: 'Bearer' };
});
tokenEndpoint(t.procedure, {
  authenticateClient: async (credentials: ClientCredentials) => credentials.clientId === 'app' && { id: 'app' as const },
}).grant('password', ({ client }) => {
  expectTypeOf(client).toEqualTypeOf<{ id: 'app' }>();
  return { access_token: 'a', token_type: 'Bearer' };
});

// docs/contract.md#token-responses: the refusal of a field sent in the URL's query is a TRPCError
// to throw, or nothing; any target and any iterable of field names are taken.
{
  expectTypeOf(queryFieldsRefusal('/token?client_secret=s', ['client_secret'])).toEqualTypeOf<TRPCError | undefined>();
  expectTypeOf(queryFieldsRefusal(undefined, new Set(['client_id']))).toEqualTypeOf<TRPCError | undefined>();
  // @ts-expect-error the fields are names, not a record
  queryFieldsRefusal('/token', { client_secret: true });
  // @ts-expect-error a URL object is not a target: its text is (`url.href`)
  queryFieldsRefusal(new URL('https://api.example/token'), ['client_id']);
}

// docs/contract.md#client-authentication: tokenRefusalInPlace changes the error it is given and
// answers nothing; it takes any thrown value and a request's headers, or none.
{
  expectTypeOf(tokenRefusalInPlace).parameters.toEqualTypeOf<[error: unknown, headers: HeadersLike | null | undefined]>();
  expectTypeOf(tokenRefusalInPlace(new Error('x'), new Headers())).toEqualTypeOf<void>();
  // @ts-expect-error the headers are required, if only as undefined: the Basic challenge depends on them
  tokenRefusalInPlace(new Error('x'));
}
