import { oauth2PasswordBearer, type Principal as CorePrincipal, type TokenVerifier as CoreTokenVerifier} from '@trpc-oauth2/core';
import { initTRPC, type TRPCError } from '@trpc/server';
import type { JWTPayload } from 'jose';
import { expectTypeOf } from 'vitest';
import { z } from 'zod';
import {
  cacheVerifier,
  introspectionVerifier,
  jwtVerifier,
  verifierUnavailableError,
  VerifierUnavailableError,
  type IntrospectionPrincipal,
  type IntrospectionResponse,
  type IntrospectionVerifierOptions,
  type JwtPrincipal,
  type Principal,
  type TokenVerifier,
  type AudienceBoundVerifier,
  type VerifyOptions,
} from '../../src/index.js';

const jwks = { jwksUrl: 'https://issuer.example/jwks', algorithms: ['RS256'], issuer: 'https://issuer.example', audience: 'api' } as const;

// principal.claims is the JWT payload by default, and the zod schema's output when there is one.
const plain = jwtVerifier(jwks);
expectTypeOf(plain).toEqualTypeOf<AudienceBoundVerifier<JwtPrincipal<JWTPayload>>>();
expectTypeOf(plain).toExtend<TokenVerifier<JwtPrincipal<JWTPayload>>>();
// Every verifier of this package names its audience, read-only.
expectTypeOf(plain.audience).toEqualTypeOf<readonly [string, ...string[]]>();
// @ts-expect-error the audience is read-only
plain.audience = ['other'];
// It may name its issuers (jwtVerifier always does, introspectionVerifier when given them), read-only.
expectTypeOf(plain.issuer).toEqualTypeOf<readonly string[] | undefined>();
// @ts-expect-error the issuers are read-only
plain.issuer = ['other'];
const typed = jwtVerifier({ ...jwks, claims: z.object({ tenant: z.string(), roles: z.array(z.enum(['admin', 'user'])) }) });
expectTypeOf(typed).returns.resolves.toEqualTypeOf<JwtPrincipal<{ tenant: string; roles: ('admin' | 'user')[] }>>();
expectTypeOf<Awaited<ReturnType<typeof typed>>['claims']['roles']>().toEqualTypeOf<('admin' | 'user')[]>();
expectTypeOf<JwtPrincipal['subject']>().toEqualTypeOf<string>();
expectTypeOf<JwtPrincipal['scopes']>().toEqualTypeOf<readonly string[]>();
expectTypeOf<JwtPrincipal['expiresAt']>().toEqualTypeOf<number>();
// The authentication event, for step-up: optional, typed.
expectTypeOf<JwtPrincipal['acr']>().toEqualTypeOf<string | undefined>();
expectTypeOf<JwtPrincipal['amr']>().toEqualTypeOf<readonly string[] | undefined>();
expectTypeOf<JwtPrincipal['authTime']>().toEqualTypeOf<number | undefined>();

// A verifier takes a token and the options core's readers pass: a signal, the request, the ctx,
// and whether a cache may answer (`fresh`).
expectTypeOf(plain).parameters.toEqualTypeOf<[token: string, options?: VerifyOptions<any>]>();
expectTypeOf<VerifyOptions['fresh']>().toEqualTypeOf<boolean | undefined>();

// The principals fit the contract core's readers take (structurally), and so does any principal.
expectTypeOf<JwtPrincipal>().toExtend<Principal>();
expectTypeOf<IntrospectionPrincipal>().toExtend<Principal>();
expectTypeOf<{ scopes: ReadonlySet<string> }>().toExtend<Principal>();
// @ts-expect-error scopes are required
const noScopes: Principal = { expiresAt: 1 };

// Algorithms are pinned, never none, and match the kind of key.
// @ts-expect-error algorithms are required
jwtVerifier({ jwksUrl: 'https://issuer.example/jwks', issuer: 'i', audience: 'a' });
// @ts-expect-error none is not an algorithm
jwtVerifier({ ...jwks, algorithms: ['none'] });
// @ts-expect-error HS256 is verified with a secret, never with a key set
jwtVerifier({ ...jwks, algorithms: ['HS256'] });
// @ts-expect-error a secret verifies HMAC only
jwtVerifier({ secret: 'x', algorithms: ['RS256'], issuer: 'i', audience: 'a' });
// @ts-expect-error one key source only
jwtVerifier({ ...jwks, secret: 'x' });
// @ts-expect-error issuer and audience are required
jwtVerifier({ jwksUrl: 'https://issuer.example/jwks', algorithms: ['RS256'] });
jwtVerifier({ secret: new Uint8Array(32), algorithms: ['HS256', 'HS512'], issuer: 'i', audience: ['a', 'b'] });

// Introspection: typed by the response by default, by the schema when given.
expectTypeOf(introspectionVerifier({ endpoint: 'https://issuer.example/i', clientId: 'c', clientSecret: 's', audience: 'a' }))
  .returns.resolves.toEqualTypeOf<IntrospectionPrincipal<IntrospectionResponse>>();
expectTypeOf(introspectionVerifier({ endpoint: 'https://issuer.example/i', clientId: 'c', clientSecret: 's', audience: 'a', claims: z.object({ sub: z.string() }) }))
  .returns.resolves.toEqualTypeOf<IntrospectionPrincipal<{ sub: string }>>();
expectTypeOf<IntrospectionPrincipal['subject']>().toEqualTypeOf<string | undefined>();
// @ts-expect-error the audience is required: introspection never accepts another API's tokens
introspectionVerifier({ endpoint: 'https://issuer.example/i', clientId: 'c', clientSecret: 's' });
expectTypeOf(introspectionVerifier({ endpoint: 'https://issuer.example/i', clientId: 'c', clientSecret: 's', audience: ['a', 'b'], issuer: 'i' }).audience)
  .toEqualTypeOf<readonly [string, ...string[]]>();
expectTypeOf<IntrospectionPrincipal['expiresAt']>().toEqualTypeOf<number | undefined>();
// The clock tolerance is seconds, a number: a duration string ('30s') is refused by the types too.
expectTypeOf<IntrospectionVerifierOptions['clockTolerance']>().toEqualTypeOf<number | undefined>();
// @ts-expect-error clockTolerance is a number of seconds
introspectionVerifier({ endpoint: 'https://issuer.example/i', clientId: 'c', clientSecret: 's', audience: 'a', clockTolerance: '30s' });

// The cache keeps the verifier's principal type.
expectTypeOf(cacheVerifier(typed, { maxEntries: 1 })).toEqualTypeOf<typeof typed>();
// …and its audience, when it names one; a plain verifier stays a plain verifier.
expectTypeOf(cacheVerifier(typed, { maxEntries: 1 }).audience).toEqualTypeOf<readonly [string, ...string[]]>();
const bare: TokenVerifier<Principal> = async () => ({ scopes: [] });
expectTypeOf(cacheVerifier(bare, { maxEntries: 1 })).toEqualTypeOf<TokenVerifier<Principal>>();
// @ts-expect-error maxEntries is required: the cache is bounded
cacheVerifier(plain, {});

expectTypeOf(verifierUnavailableError(new VerifierUnavailableError('ERR_JWKS_UNAVAILABLE', 'm'))).toEqualTypeOf<TRPCError>();
// @ts-expect-error codes are stable: only the two known ones
new VerifierUnavailableError('ERR_OTHER', 'm');

// The verifiers fit core's readers: their principals are core's Principal, typed through to ctx.
{
  expectTypeOf<JwtPrincipal>().toExtend<CorePrincipal>();
  expectTypeOf<IntrospectionPrincipal>().toExtend<CorePrincipal>();
  const jwt = jwtVerifier({ secret: 'x'.repeat(32), algorithms: ['HS256'], issuer: 'i', audience: 'a' });
  expectTypeOf(jwt).toExtend<CoreTokenVerifier<JwtPrincipal>>();
  const t = initTRPC.create();
  const reader = oauth2PasswordBearer({ tokenUrl: 't', scopes: { read: '' }, verify: cacheVerifier(jwt, { maxEntries: 1 }) });
  t.procedure.use(reader.withScopes('read')).query(({ ctx }) => {
    expectTypeOf(ctx.principal).toEqualTypeOf<JwtPrincipal>();
    expectTypeOf(ctx.principal.subject).toEqualTypeOf<string>();
  });
  const opaque = oauth2PasswordBearer({
    tokenUrl: 't',
    autoError: false,
    verify: introspectionVerifier({ endpoint: 'https://as.example/introspect', clientId: 'c', clientSecret: 's', audience: 'a' }),
  });
  t.procedure.use(opaque).query(({ ctx }) => {
    expectTypeOf(ctx.principal).toEqualTypeOf<IntrospectionPrincipal | null>();
  });
}

// The key set's timings are milliseconds, each optional.
jwtVerifier({ ...jwks, cooldownDuration: 1_000, cacheMaxAge: 60_000, staleIfErrorDuration: 600_000, failureCooldownDuration: 2_000 });
expectTypeOf<NonNullable<import('../../src/index.js').JwtJwksOptions['staleIfErrorDuration']>>().toEqualTypeOf<number>();
expectTypeOf<NonNullable<import('../../src/index.js').JwtJwksOptions['failureCooldownDuration']>>().toEqualTypeOf<number>();
// @ts-expect-error a string is not milliseconds
jwtVerifier({ ...jwks, staleIfErrorDuration: '1h' });
