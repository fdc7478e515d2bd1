import type { TRPCError } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import {
  OAuth2Error,
  assertGrantedScopes,
  getOAuth2Error,
  oauth2PasswordBearer,
  readClientCredentials,
  type ClientCredentials,
  type GrantedScopes,
  type SecurityScopes,
} from '../../src/index.js';
import {
  bearerNotAuthenticatedError,
  credentialInUrlError,
  insufficientScopeError,
  insufficientUserAuthenticationError,
  invalidTokenError,
  tokenExpiredError,
  type ChallengeOptions,
  type OAuth2ErrorCode,
  type OAuth2ErrorStatus,
} from '../../src/errors-entry.js';

expectTypeOf(getOAuth2Error(new Error())).toEqualTypeOf<OAuth2Error | undefined>();
expectTypeOf<OAuth2Error['status']>().toEqualTypeOf<OAuth2ErrorStatus>();
expectTypeOf(new OAuth2Error({ code: 'ERR_INVALID_TOKEN', status: 401, message: 'm' }).toTRPCError()).toEqualTypeOf<TRPCError>();
// @ts-expect-error a status without a tRPC code of the same meaning is refused
new OAuth2Error({ code: 'ERR_INVALID_TOKEN', status: 500, message: 'm' });
// The codes are a closed set, each code named once here: a plain string is not a code.
const everyCode = ['ERR_NOT_AUTHENTICATED', 'ERR_INVALID_TOKEN', 'ERR_INSUFFICIENT_SCOPE', 'ERR_INSUFFICIENT_USER_AUTHENTICATION', 'ERR_INVALID_REQUEST', 'ERR_INVALID_CLIENT',
  'ERR_INVALID_GRANT', 'ERR_UNAUTHORIZED_CLIENT', 'ERR_UNSUPPORTED_GRANT_TYPE', 'ERR_INVALID_SCOPE', 'ERR_UNSUPPORTED_TOKEN_TYPE', 'ERR_SLOW_DOWN',
  'ERR_BODY_TOO_LARGE', 'ERR_MALFORMED_BODY', 'ERR_FILE_FIELD', 'ERR_INVALID_DPOP_PROOF', 'ERR_USE_DPOP_NONCE'] as const;
expectTypeOf<(typeof everyCode)[number]>().toEqualTypeOf<OAuth2ErrorCode>();
expectTypeOf<string>().not.toExtend<OAuth2ErrorCode>();
// @ts-expect-error a code outside the closed set is refused
new OAuth2Error({ code: 'ERR_X', status: 401, message: 'm' });
expectTypeOf<OAuth2Error['code']>().toEqualTypeOf<OAuth2ErrorCode>();
// @ts-expect-error the factory must build a TRPCError
oauth2PasswordBearer({ tokenUrl: 't', makeNotAuthenticatedError: () => new Error('x') });
expectTypeOf(readClientCredentials({}, { client_id: null, client_secret: null })).toEqualTypeOf<ClientCredentials>();
expectTypeOf<ClientCredentials['method']>().toEqualTypeOf<'client_secret_basic' | 'client_secret_post' | 'none'>();

// Every refusal factory builds the TRPCError the adapters answer with.
expectTypeOf(bearerNotAuthenticatedError()).toEqualTypeOf<TRPCError>();
expectTypeOf(bearerNotAuthenticatedError({ scope: ['me'], resourceMetadata: 'https://api.example/.well-known/oauth-protected-resource' })).toEqualTypeOf<TRPCError>();
expectTypeOf(invalidTokenError()).toEqualTypeOf<TRPCError>();
expectTypeOf(insufficientScopeError(['me'])).toEqualTypeOf<TRPCError>();
expectTypeOf(insufficientUserAuthenticationError({ acrValues: ['mfa'] })).toEqualTypeOf<TRPCError>();
expectTypeOf(credentialInUrlError()).toEqualTypeOf<TRPCError>();
expectTypeOf(tokenExpiredError()).toEqualTypeOf<TRPCError>();
expectTypeOf<ChallengeOptions>().toEqualTypeOf<{ resourceMetadata?: string }>();
// @ts-expect-error the scopes are a list, as the challenge names them
insufficientScopeError('me');
// @ts-expect-error a challenge's scopes are a list
bearerNotAuthenticatedError({ scope: 'me' });
// @ts-expect-error the description is text
invalidTokenError(401);
// @ts-expect-error the statuses are the ones with a tRPC code of the same meaning
const teapot: OAuth2ErrorStatus = 418;
void teapot;

// Each reader factory option builds a TRPCError too, and is given what it names.
oauth2PasswordBearer({
  tokenUrl: 't',
  makeInvalidTokenError: (description) => invalidTokenError(description),
  makeInsufficientScopeError: (scopes) => {
    expectTypeOf(scopes).toEqualTypeOf<readonly string[]>();
    return insufficientScopeError(scopes);
  },
  makeCredentialInUrlError: () => credentialInUrlError(),
  makeTokenExpiredError: () => tokenExpiredError(),
});
// @ts-expect-error makeInvalidTokenError builds a TRPCError
oauth2PasswordBearer({ tokenUrl: 't', makeInvalidTokenError: (description: string) => new Error(description) });
// @ts-expect-error makeInsufficientScopeError builds a TRPCError
oauth2PasswordBearer({ tokenUrl: 't', makeInsufficientScopeError: () => 'forbidden' });
// @ts-expect-error makeTokenExpiredError builds a TRPCError
oauth2PasswordBearer({ tokenUrl: 't', makeTokenExpiredError: () => new Error('expired') });

// assertGrantedScopes: the chain's scopes against a grant, as a list or a set; a scope string is no grant.
declare const required: SecurityScopes<'me' | 'items'>;
expectTypeOf(assertGrantedScopes(required, ['me'])).toEqualTypeOf<void>();
assertGrantedScopes(required, new Set(['me']));
expectTypeOf<GrantedScopes>().toEqualTypeOf<ReadonlySet<string> | readonly string[]>();
// @ts-expect-error a grant is a list or a set: split the `scope` string first
assertGrantedScopes(required, 'me items');
// @ts-expect-error the required scopes are the chain's SecurityScopes
assertGrantedScopes(['me'], ['me']);
// Given the reader the scopes are declared by (its hierarchy and its challenge apply); any reader of this library.
assertGrantedScopes(required, ['me'], oauth2PasswordBearer({ tokenUrl: 't', scopes: { me: 'Me' }, manualScopeCheck: true }));
// @ts-expect-error the third argument is a reader, with its makeInsufficientScopeError
assertGrantedScopes(required, ['me'], { resourceMetadata: 'https://api.example/.well-known/oauth-protected-resource' });
