import { initTRPC, type inferRouterInputs, type inferRouterOutputs } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import { type ClientCredentials, type PasswordRequestForm } from '../../src/index.js';
import {
  authorizationCodeGrantForm,
  defineGrantForm,
  revocationEndpoint,
  tokenEndpoint,
  type AuthorizationCodeRequestForm,
  type ClientCredentialsRequestForm,
  type RefreshTokenRequestForm,
  type RevocationRequestForm,
} from '../../src/token-endpoint/index.js';

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
// What a client may send: any registered grant's request.
expectTypeOf<{ username: string; password: string }>().toExtend<Inputs>();
expectTypeOf<{ grant_type: 'refresh_token'; refresh_token: string }>().toExtend<Inputs>();
expectTypeOf<{ grant_type: 'authorization_code'; code: string; code_verifier: string }>().toExtend<Inputs>();
expectTypeOf<{ grant_type: 'refresh_token' }>().not.toExtend<Inputs>();
// The output is what the handlers return: every handler above returns a refresh token.
expectTypeOf<Outputs['refresh_token']>().toEqualTypeOf<string>();

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
