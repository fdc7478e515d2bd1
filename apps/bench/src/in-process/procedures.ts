import { initTRPC } from '@trpc/server';
import { anyOf, oauth2, oauth2PasswordBearer, passwordRequestForm, type Principal } from '@trpc-oauth2/core';
import { cacheVerifier, jwtVerifier } from '@trpc-oauth2/jwt';
import { BENCH_JWT } from '../bench-jwt.js';

/**
 * What the in-process calls put on ctx: the headers, as `createCaller` users pass them.
 *
 * @example
 * ```ts
 * const ctx: InProcessContext = { headers: { authorization: 'Bearer abc' } };
 * ```
 */
export interface InProcessContext {
  headers: Readonly<Record<string, string>>;
}

const t = initTRPC.context<InProcessContext>().create();

/**
 * The bearer reader of the two-scope cases.
 *
 * @example
 * ```ts
 * bearer({ ctx: { headers: { authorization: 'Bearer abc' } }, next });
 * ```
 */
export const bearer = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read me', items: 'Read items' }, manualScopeCheck: true });
/** The base reader (FastAPI's `OAuth2`). */
const base = oauth2();

/** Scope names `s0` … `s99`, declared by {@link wide}. */
const MANY_SCOPES = Array.from({ length: 100 }, (_, i) => `s${i}`);
const WIDE_SCOPES = Object.fromEntries(MANY_SCOPES.map((scope) => [scope, `Scope ${scope}`]));
/** A bearer reader declaring a hundred scopes, for the scope-count cases (scopes only collected). */
const wide = oauth2PasswordBearer({ tokenUrl: '/token', scopes: WIDE_SCOPES, manualScopeCheck: true });
/** A principal granting every one of the hundred scopes. */
const GRANTED: Principal = Object.freeze({ scopes: new Set(MANY_SCOPES) });
/**
 * The same reader verified by a verifier that grants all hundred scopes at once (no work of its
 * own): every scope step then also enforces the scopes, the part that grows with their number.
 */
const wideGranted = oauth2PasswordBearer({ tokenUrl: '/token', scopes: WIDE_SCOPES, verify: async () => GRANTED });

/** The verified readers of the `verified` cases: a real ES256 JWT check, cached and not. */
const jwt = jwtVerifier({ key: BENCH_JWT.publicJwk, algorithms: ['ES256'], issuer: BENCH_JWT.issuer, audience: BENCH_JWT.audience });
const scopes = { me: 'Read me', items: 'Read items' };
const verifiedUncached = oauth2PasswordBearer({ tokenUrl: '/token', scopes, verify: jwt });
const verifiedCached = oauth2PasswordBearer({ tokenUrl: '/token', scopes, verify: cacheVerifier(jwt, { maxEntries: 1_000 }) });
/** The cached reader first in an `anyOf` with a second issuer's reader: the group answers from the first reader's cache. */
const eitherCached = anyOf(
  oauth2PasswordBearer({ tokenUrl: '/token', scopes, schemeName: 'Own', verify: cacheVerifier(jwt, { maxEntries: 1_000 }) }),
  oauth2PasswordBearer({ tokenUrl: '/other-token', scopes, schemeName: 'Other', verify: cacheVerifier(jwt, { maxEntries: 1_000 }) }),
);

/** What the bare procedure answers: the same shape as the protected ones, with nobody in it. */
const ANONYMOUS = { token: null, scopes: [] as readonly string[] };

/** A middleware that does nothing but add a key to ctx: tRPC's own cost of one `.use()`. */
const passThrough = <const $Key extends string>(key: $Key) =>
  t.middleware(({ next }) => next({ ctx: { [key]: true } as { [K in $Key]: true } }));

/**
 * A middleware that does no work but puts on ctx the four keys a verified step puts there (the
 * token, the principal, the SecurityScopes and the request's security state, under a symbol):
 * tRPC's own cost of the keys the contract asks for, whatever reads the token.
 */
const STATE = Symbol('state');
const PRINCIPAL: Principal & { subject: string } = { subject: 'alice', scopes: ['me', 'items'] };
const SCOPES = { scopes: ['me', 'items'], scopeStr: 'me items' };
const fourKeys = t.middleware(({ next }) =>
  next({ ctx: { token: BENCH_JWT.token, principal: PRINCIPAL, securityScopes: SCOPES, [STATE]: SCOPES } }),
);

/** A procedure with one `requireScopes` of the first `count` scopes. */
const scopesAtOnce = (count: number) =>
  t.procedure
    .use(wide)
    .use(wide.requireScopes(...(MANY_SCOPES.slice(0, count) as [string, ...string[]])))
    .query(({ ctx }) => ({ token: ctx.token, scopes: ctx.securityScopes.scopes }));

/**
 * A procedure with one `withScopes` of the first `count` scopes of the verified reader: the
 * reader and the scopes in a single step, which also enforces every scope it requires.
 */
const withScopesOf = (count: number) =>
  t.procedure
    .use(wideGranted.withScopes(...(MANY_SCOPES.slice(0, count) as [string, ...string[]])))
    .query(({ ctx }) => ({ token: ctx.token, scopes: ctx.securityScopes.scopes }));

/**
 * A procedure with `count` chained `requireScopes`, one scope each, after the verified reader:
 * every link then also checks the scopes granted.
 */
const scopesChained = (count: number) => {
  let chain = t.procedure.use(wideGranted);
  for (const scope of MANY_SCOPES.slice(0, count)) chain = chain.use(wideGranted.requireScopes(scope)) as unknown as typeof chain;
  return chain.query(({ ctx }) => ({ token: ctx.token, scopes: (ctx as { securityScopes?: { scopes: readonly string[] } }).securityScopes?.scopes }));
};

/** Every procedure the in-process cases call. */
const inProcessRouter = t.router({
  bare: t.procedure.query(() => ANONYMOUS),
  base: t.procedure.use(base).query(({ ctx }) => ({ token: ctx.authorization, scopes: [] as readonly string[] })),
  bearer: t.procedure.use(bearer).query(({ ctx }) => ({ token: ctx.token, scopes: [] as readonly string[] })),
  bearerTwoScopes: t.procedure
    .use(bearer)
    .use(bearer.requireScopes('me'))
    .use(bearer.requireScopes('items'))
    .query(({ ctx }) => ({ token: ctx.token, scopes: ctx.securityScopes.scopes })),
  bearerWithScopes: t.procedure
    .use(bearer.withScopes('me', 'items'))
    .query(({ ctx }) => ({ token: ctx.token, scopes: ctx.securityScopes.scopes })),
  bearerScopesAtOnce: t.procedure
    .use(bearer)
    .use(bearer.requireScopes('me', 'items'))
    .query(({ ctx }) => ({ token: ctx.token, scopes: ctx.securityScopes.scopes })),
  onePassThrough: t.procedure.use(passThrough('a')).query(() => ANONYMOUS),
  fourKeys: t.procedure.use(fourKeys).query(({ ctx }) => ({ token: ctx.principal.subject, scopes: ctx.securityScopes.scopes })),
  verifiedCached: t.procedure
    .use(verifiedCached.withScopes('me', 'items'))
    .query(({ ctx }) => ({ token: ctx.principal.subject, scopes: ctx.securityScopes.scopes })),
  verifiedCachedAnyOf: t.procedure
    .use(eitherCached.withScopes('me', 'items'))
    .query(({ ctx }) => ({ token: ctx.principal.subject, scopes: ctx.securityScopes.scopes })),
  verifiedUncached: t.procedure
    .use(verifiedUncached.withScopes('me', 'items'))
    .query(({ ctx }) => ({ token: ctx.principal.subject, scopes: ctx.securityScopes.scopes })),
  threePassThrough: t.procedure
    .use(passThrough('a'))
    .use(passThrough('b'))
    .use(passThrough('c'))
    .query(() => ANONYMOUS),
  form: t.procedure
    .input(passwordRequestForm)
    .mutation(({ input }) => ({ access_token: input.username, token_type: 'bearer', scope: input.scopes.join(' ') })),
  scopesAtOnce1: scopesAtOnce(1),
  scopesAtOnce10: scopesAtOnce(10),
  scopesAtOnce100: scopesAtOnce(100),
  withScopes1: withScopesOf(1),
  withScopes10: withScopesOf(10),
  withScopes100: withScopesOf(100),
  scopesChained1: scopesChained(1),
  scopesChained10: scopesChained(10),
  scopesChained100: scopesChained(100),
});

/**
 * A caller whose every call gets a fresh ctx with these headers, as an adapter makes one per
 * request.
 *
 * @example
 * ```ts
 * await callerWith({ authorization: 'Bearer abc' }).bearerTwoScopes();
 * ```
 */
export const callerWith = (headers: Readonly<Record<string, string>>) => t.createCallerFactory(inProcessRouter)(() => ({ headers }));

/**
 * The `Authorization` value of the verified cases: the bench's ES256 JWT.
 *
 * @example
 * ```ts
 * await callerWith({ authorization: JWT_AUTHORIZATION }).verifiedCached();
 * ```
 */
export const JWT_AUTHORIZATION = `Bearer ${BENCH_JWT.token}`;
