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
  TOKEN_REFUSALS,
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

// One key source only, whichever two are given (docs/contract.md#verified-readers).
const publicJwk = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' };
jwtVerifier({ key: publicJwk, algorithms: ['ES256'], issuer: 'i', audience: 'a' });
// @ts-expect-error a key and a key set: one key source only
jwtVerifier({ ...jwks, key: publicJwk });
// @ts-expect-error a key and a secret: one key source only
jwtVerifier({ key: publicJwk, secret: 'x'.repeat(32), algorithms: ['ES256'], issuer: 'i', audience: 'a' });
// @ts-expect-error no key source at all
jwtVerifier({ algorithms: ['ES256'], issuer: 'i', audience: 'a' });
// @ts-expect-error a public key verifies asymmetric algorithms only
jwtVerifier({ key: publicJwk, algorithms: ['HS256'], issuer: 'i', audience: 'a' });
// @ts-expect-error at least one algorithm
jwtVerifier({ ...jwks, algorithms: [] });
// @ts-expect-error at least one audience: an empty list names none
jwtVerifier({ ...jwks, audience: [] });
// @ts-expect-error at least one issuer
jwtVerifier({ ...jwks, issuer: [] });
// The option types say the same: each key source rules the others out.
expectTypeOf<import('../../src/index.js').JwtPublicKeyOptions['jwksUrl']>().toEqualTypeOf<undefined>();
expectTypeOf<import('../../src/index.js').JwtSecretOptions['key']>().toEqualTypeOf<undefined>();
expectTypeOf<import('../../src/index.js').JwtJwksOptions['secret']>().toEqualTypeOf<undefined>();
expectTypeOf<import('../../src/index.js').HmacAlgorithm>().toEqualTypeOf<'HS256' | 'HS384' | 'HS512'>();
expectTypeOf<'none'>().not.toExtend<import('../../src/index.js').AsymmetricAlgorithm>();
// Durations are numbers: seconds for the token, milliseconds for the key set.
// @ts-expect-error clockTolerance is a number of seconds
jwtVerifier({ ...jwks, clockTolerance: '30s' });
// @ts-expect-error maxTokenAge is a number of seconds
jwtVerifier({ ...jwks, maxTokenAge: '1h' });

// The claims schema's output flows through a reader into ctx.principal.claims.
{
  const t = initTRPC.create();
  const claims = z.looseObject({ tenant: z.string(), roles: z.array(z.enum(['admin', 'user'])) });
  const verify = cacheVerifier(jwtVerifier({ ...jwks, claims }), { maxEntries: 10 });
  const reader = oauth2PasswordBearer({ tokenUrl: 't', scopes: { read: '' }, verify });
  t.procedure.use(reader.withScopes('read')).query(({ ctx }) => {
    expectTypeOf(ctx.principal.claims.tenant).toEqualTypeOf<string>();
    expectTypeOf(ctx.principal.claims.roles).toEqualTypeOf<('admin' | 'user')[]>();
    expectTypeOf(ctx.principal.claims).toHaveProperty('tenant');
  });
  const optional = oauth2PasswordBearer({ tokenUrl: 't', autoError: false, verify: jwtVerifier({ ...jwks, claims: z.object({ org: z.number() }) }) });
  t.procedure.use(optional).query(({ ctx }) => {
    expectTypeOf(ctx.principal).toEqualTypeOf<JwtPrincipal<{ org: number }> | null>();
  });
  // The introspection answer, parsed by its schema, likewise.
  const opaque = oauth2PasswordBearer({
    tokenUrl: 't',
    verify: introspectionVerifier({ endpoint: 'https://as.example/introspect', clientId: 'c', clientSecret: 's', audience: 'a', claims: z.object({ sub: z.string(), tenant: z.string() }) }),
  });
  t.procedure.use(opaque).query(({ ctx }) => {
    expectTypeOf(ctx.principal.claims).toEqualTypeOf<{ sub: string; tenant: string }>();
  });
  // @ts-expect-error the claims schema is a zod schema
  jwtVerifier({ ...jwks, claims: (payload: unknown) => payload });
}

// The introspection cache is bounded, or off.
introspectionVerifier({ endpoint: 'https://as.example/i', clientId: 'c', clientSecret: 's', audience: 'a', cache: { maxEntries: 100, maxAge: 30 } });
introspectionVerifier({ endpoint: 'https://as.example/i', clientId: 'c', clientSecret: 's', audience: 'a', cache: false });
// @ts-expect-error a cache names its bound
introspectionVerifier({ endpoint: 'https://as.example/i', clientId: 'c', clientSecret: 's', audience: 'a', cache: {} });
// @ts-expect-error `true` is no bound
introspectionVerifier({ endpoint: 'https://as.example/i', clientId: 'c', clientSecret: 's', audience: 'a', cache: true });
// @ts-expect-error the client authenticates: clientSecret is required
introspectionVerifier({ endpoint: 'https://as.example/i', clientId: 'c', audience: 'a' });
expectTypeOf<IntrospectionVerifierOptions['timeout']>().toEqualTypeOf<number | undefined>();

// cacheVerifier: a partition is a function of the verify options, keyed by text.
cacheVerifier(plain, { maxEntries: 10, maxAge: 60, partition: (options) => options.request.url });
// @ts-expect-error a partition answers a string
cacheVerifier(plain, { maxEntries: 10, partition: (options: VerifyOptions) => options.request });
// @ts-expect-error maxAge is a number of seconds
cacheVerifier(plain, { maxEntries: 10, maxAge: '5m' });
// It keeps `peek` typed by its principal.
expectTypeOf(cacheVerifier(typed, { maxEntries: 1 }).peek).toEqualTypeOf<((token: string) => JwtPrincipal<{ tenant: string; roles: ('admin' | 'user')[] }> | undefined) | undefined>();

// The fixed refusals are literal texts; the 503's codes are a closed set.
expectTypeOf(TOKEN_REFUSALS.expired).toEqualTypeOf<'The access token expired'>();
expectTypeOf<VerifierUnavailableError['code']>().toEqualTypeOf<'ERR_JWKS_UNAVAILABLE' | 'ERR_INTROSPECTION_UNAVAILABLE'>();

// A cached verifier that reads the ctx (`VerifyOptions<TCtx>`) still declares it, so the reader
// guarding it still needs that ctx on the procedure (docs/contract.md#verified-readers), and its
// partition reads the same ctx.
{
  const byTenant = async (_token: string, options?: VerifyOptions<{ tenant: string }>): Promise<Principal> => ({ scopes: [options!.ctx.tenant] });
  const cached = cacheVerifier(byTenant, { maxEntries: 10, partition: ({ ctx }) => ctx.tenant });
  expectTypeOf(cached).toEqualTypeOf<TokenVerifier<Principal, { tenant: string }>>();
  // @ts-expect-error the partition reads the ctx the verifier declares, whose tenant is text
  cacheVerifier(byTenant, { maxEntries: 10, partition: ({ ctx }) => ctx.tenant.length });
  const reader = oauth2PasswordBearer({ tokenUrl: 't', scopes: { read: '' }, verify: cached });
  initTRPC.context<{ tenant: string }>().create().procedure.use(reader.withScopes('read'));
  // @ts-expect-error the cache does not hide what its verifier reads: this ctx has no tenant
  initTRPC.context<{ req: Request }>().create().procedure.use(reader.withScopes('read'));
}
