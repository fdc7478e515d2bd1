import { initTRPC, type TRPCError } from '@trpc/server';
import { expectTypeOf } from 'vitest';
import {
  assertAuthentication,
  oauth2PasswordBearer,
  requireAuthentication,
  type AuthenticatedPrincipal,
  type Principal,
  type StepUpOptions,
  type TokenVerifier,
} from '../../src/index.js';
import { insufficientUserAuthenticationError, type AuthenticationRequirement } from '../../src/errors-entry.js';

// Step-up (RFC 9470): a middleware for a chain with a verified principal, typed by what the
// principal says of the login (docs/contract.md#step-up-authentication).
interface User extends Principal {
  readonly subject: string;
  readonly scopes: readonly string[];
  readonly acr?: string;
  readonly authTime?: number;
}
declare const verifyUser: TokenVerifier<User>;
const t = initTRPC.context<{ req: Request }>().create();
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me' }, verify: verifyUser });

// The principal's login, as jwtVerifier's principal carries it.
expectTypeOf<AuthenticatedPrincipal>().toEqualTypeOf<{
  readonly acr?: string | undefined;
  readonly amr?: readonly string[] | undefined;
  readonly authTime?: number | undefined;
}>();
expectTypeOf<AuthenticationRequirement>().toEqualTypeOf<{ acrValues?: readonly string[]; maxAge?: number }>();

// After a verified reader: the ctx goes on unchanged, the principal typed as the verifier says.
t.procedure
  .use(auth)
  .use(requireAuthentication({ acrValues: ['mfa'], maxAge: 300 }))
  .query(({ ctx }) => {
    expectTypeOf(ctx.principal).toEqualTypeOf<User>();
    expectTypeOf(ctx.token).toEqualTypeOf<string>();
  });
t.procedure
  .use(auth.withScopes('me'))
  .use(requireAuthentication({ maxAge: 60 }))
  .query(({ ctx }) => {
    expectTypeOf(ctx.securityScopes.scopes).toEqualTypeOf<readonly 'me'[]>();
  });
// Behind an optional reader too (it refuses a request without a principal at run time).
t.procedure
  .use(oauth2PasswordBearer({ tokenUrl: 'token', verify: verifyUser, autoError: false }))
  .use(requireAuthentication({ acrValues: ['mfa'] }))
  .query(({ ctx }) => {
    expectTypeOf(ctx.principal).toEqualTypeOf<User | null>();
  });
// Before any reader, on a principal the application put on ctx.
initTRPC
  .context<{ principal: AuthenticatedPrincipal | null }>()
  .create()
  .procedure.use(requireAuthentication({ acrValues: ['mfa'] }))
  .query(() => 'ok');

// A verifier typed with the plain Principal (a hand-written one, or TokenVerifier's default) says
// nothing of the login: the requirement compiles, and a principal that carries no acr or auth_time
// at run time is refused (401 insufficient_user_authentication, as step-up.test.ts checks).
{
  const plain = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Me' }, verify: null as unknown as TokenVerifier });
  t.procedure
    .use(plain.withScopes('me'))
    .use(requireAuthentication({ acrValues: ['mfa'] }))
    .query(({ ctx }) => expectTypeOf(ctx.principal).toEqualTypeOf<Principal>());
}

// A chain with no principal on ctx has nothing to step up.
// @ts-expect-error ctx.principal is missing: no verified reader before it
t.procedure.use(requireAuthentication({ maxAge: 60 })).query(() => 'ok');
// @ts-expect-error a reader without verify puts no principal on ctx
t.procedure.use(oauth2PasswordBearer({ tokenUrl: 'token' })).use(requireAuthentication({ maxAge: 60 })).query(() => 'ok');
// A principal whose acr is not text cannot be compared with acrValues.
declare const numericAcr: TokenVerifier<{ scopes: string[]; acr: number }>;
// @ts-expect-error acr is a string
t.procedure.use(oauth2PasswordBearer({ tokenUrl: 'token', verify: numericAcr })).use(requireAuthentication({ maxAge: 60 })).query(() => 'ok');

// The requirement: acr values are a list of strings, maxAge a number of seconds.
// @ts-expect-error maxAge is a number of seconds, not a duration string
requireAuthentication({ maxAge: '5m' });
// @ts-expect-error acrValues is a list
requireAuthentication({ acrValues: 'mfa' });
// @ts-expect-error no other member
requireAuthentication({ acr: 'mfa' });

// The options: a challenge's resource_metadata, a description and a factory building a TRPCError.
expectTypeOf<StepUpOptions['resourceMetadata']>().toEqualTypeOf<string | undefined>();
requireAuthentication({ maxAge: 60 }, { resourceMetadata: 'https://api.example/.well-known/oauth-protected-resource', description: 'Log in again' });
requireAuthentication({ acrValues: ['mfa'] }, { makeError: (requirement, options) => insufficientUserAuthenticationError(requirement, options) });
// @ts-expect-error the factory must build a TRPCError
requireAuthentication({ maxAge: 60 }, { makeError: () => new Error('step up') });

// The same check for a resolver: returns nothing, throws the refusal.
expectTypeOf(assertAuthentication).returns.toEqualTypeOf<void>();
expectTypeOf(assertAuthentication).parameters.toEqualTypeOf<[principal: AuthenticatedPrincipal, requirement: AuthenticationRequirement, options?: StepUpOptions]>();
// @ts-expect-error acr is a string
assertAuthentication({ acr: 1 }, { acrValues: ['mfa'] });
// @ts-expect-error authTime is seconds since the epoch, a number
assertAuthentication({ authTime: new Date() }, { maxAge: 60 });
expectTypeOf(insufficientUserAuthenticationError({ maxAge: 60 })).toEqualTypeOf<TRPCError>();
