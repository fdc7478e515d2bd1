import { initTRPC } from '@trpc/server';
import { oauth2, oauth2PasswordBearer, passwordRequestForm } from '@trpc-oauth2/core';

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
  /** The scopes a token grants, for the cases where the scope steps also enforce them. */
  grantedScopes?: ReadonlySet<string>;
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
export const bearer = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read me', items: 'Read items' } });
/** The base reader (FastAPI's `OAuth2`). */
const base = oauth2();

/** Scope names `s0` … `s99`, declared by {@link wide}. */
const MANY_SCOPES = Array.from({ length: 100 }, (_, i) => `s${i}`);
/** A bearer reader declaring a hundred scopes, for the scope-count cases. */
const wide = oauth2PasswordBearer({
  tokenUrl: '/token',
  scopes: Object.fromEntries(MANY_SCOPES.map((scope) => [scope, `Scope ${scope}`])),
});
const GRANTED: ReadonlySet<string> = new Set(MANY_SCOPES);

/** What the bare procedure answers: the same shape as the protected ones, with nobody in it. */
const ANONYMOUS = { token: null, scopes: [] as readonly string[] };

/** A middleware that does nothing but add a key to ctx: tRPC's own cost of one `.use()`. */
const passThrough = <const $Key extends string>(key: $Key) =>
  t.middleware(({ next }) => next({ ctx: { [key]: true } as { [K in $Key]: true } }));

/** A procedure with one `requireScopes` of the first `count` scopes. */
const scopesAtOnce = (count: number) =>
  t.procedure
    .use(wide)
    .use(wide.requireScopes(...(MANY_SCOPES.slice(0, count) as [string, ...string[]])))
    .query(({ ctx }) => ({ token: ctx.token, scopes: ctx.securityScopes.scopes }));

/**
 * A procedure with one `withScopes` of the first `count` scopes: the reader and the scopes in a
 * single step. Its callers put `ctx.grantedScopes` (see {@link callerWith}), so the step also
 * enforces every scope it requires: the part that grows with their number.
 */
const withScopesOf = (count: number) =>
  t.procedure
    .use(wide.withScopes(...(MANY_SCOPES.slice(0, count) as [string, ...string[]])))
    .query(({ ctx }) => ({ token: ctx.token, scopes: ctx.securityScopes.scopes }));

/**
 * A procedure with `count` chained `requireScopes`, one scope each, after a resolver that has put
 * `ctx.grantedScopes`: every link then also checks the scopes granted.
 */
const scopesChained = (count: number) => {
  let chain = t.procedure.use(wide).use(({ next }) => next({ ctx: { grantedScopes: GRANTED } }));
  for (const scope of MANY_SCOPES.slice(0, count)) chain = chain.use(wide.requireScopes(scope)) as unknown as typeof chain;
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
 * request; with `allScopesGranted`, the ctx also says which scopes the token grants (all of them),
 * as an application's `createContext` would, so that every scope step enforces them.
 *
 * @example
 * ```ts
 * await callerWith({ authorization: 'Bearer abc' }).bearerTwoScopes();
 * ```
 */
export const callerWith = (headers: Readonly<Record<string, string>>, opts: { allScopesGranted?: boolean } = {}) =>
  t.createCallerFactory(inProcessRouter)(() => (opts.allScopesGranted === true ? { headers, grantedScopes: GRANTED } : { headers }));
