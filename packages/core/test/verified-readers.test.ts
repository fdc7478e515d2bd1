/** Verified readers, case by case (docs/contract.md#verified-readers); every order is proven in property/verified-chains. */
import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { getOAuth2Error, oauth2, oauth2PasswordBearer, type TokenVerifier } from '../src/index.js';
import { invalidTokenError } from '../src/errors-entry.js';
import { scopeToken, scopeTokenVerifier, type TestPrincipal } from './support/scope-tokens.js';

const t = initTRPC.context<{ headers?: Record<string, string> }>().create();
const scopes = { me: 'Me', items: 'Items', admin: 'Admin' };
const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify: scopeTokenVerifier('u') });
const optionalAuth = oauth2PasswordBearer({ tokenUrl: 'token', scopes, autoError: false, verify: scopeTokenVerifier('u') });
const grantsMe = { authorization: `Bearer ${scopeToken('u', ['me'])}` };

/** What a call answered, as status and challenge (200 with the value when it ran). */
async function outcome(call: Promise<unknown>) {
  return call.then(
    (value) => ({ status: 200, value }),
    (error: unknown) => {
      const cause = getOAuth2Error(error);
      return cause
        ? { status: cause.status, challenge: cause.headers['WWW-Authenticate'], message: cause.message }
        : { status: 500, code: (error as TRPCError).code, cause: (error as TRPCError).cause };
    },
  );
}
const callOne = (procedure: unknown, headers: Record<string, string> = {}) =>
  outcome((t.createCallerFactory(t.router({ q: procedure as never }))({ headers }) as { q: () => Promise<unknown> }).q());

const setsPrincipal = t.middleware(({ next }) => next({ ctx: { principal: { scopes: ['me', 'items', 'admin'] }, grantedScopes: new Set(['admin']) } }));
const setsScopes = t.middleware(({ next }) => next({ ctx: { securityScopes: { scopes: [], scopeStr: '' } } }));
const admin403 = { status: 403, challenge: 'Bearer error="insufficient_scope", scope="admin"', message: 'Not enough permissions' };

describe('the order of the chain does not matter', () => {
  it.each([
    { chain: 'withScopes(admin)', procedure: t.procedure.use(auth.withScopes('admin')), expected: admin403 },
    { chain: 'withScopes(admin), then a middleware claiming grants', procedure: t.procedure.use(auth.withScopes('admin')).use(setsPrincipal), expected: admin403 },
    { chain: 'a middleware claiming grants, then withScopes(admin)', procedure: t.procedure.use(setsPrincipal).use(auth.withScopes('admin')), expected: admin403 },
    { chain: 'reader, a middleware clearing securityScopes, requireScopes(admin)', procedure: t.procedure.use(auth).use(setsScopes).use(auth.requireScopes('admin')), expected: admin403 },
    { chain: 'requireScopes(admin), then the reader', procedure: t.procedure.use(auth.requireScopes('admin')).use(auth), expected: admin403 },
    { chain: 'requireScopes(admin) with no reader step', procedure: t.procedure.use(auth.requireScopes('admin')), expected: admin403 },
    { chain: 'requireScopes(admin) through concat', procedure: t.procedure.concat(auth.procedure).concat(t.procedure.use(auth.requireScopes('admin'))), expected: admin403 },
  ])('$chain: refused when the token grants only me', async ({ procedure, expected }) => {
    let ran = false;
    const result = await callOne(
      procedure.query(() => {
        ran = true;
        return 'reached';
      }),
      grantsMe,
    );
    expect(result).toEqual(expected);
    expect(ran).toBe(false);
  });

  it('runs the resolver when the grant covers the chain, with the principal on ctx', async () => {
    const procedure = t.procedure.use(auth.requireScopes('me')).use(auth).query(({ ctx }) => ({ principal: ctx.principal, token: ctx.token, scopes: ctx.securityScopes.scopes }));
    expect(await callOne(procedure, grantsMe)).toEqual({
      status: 200,
      value: { principal: { subject: 'u', scopes: ['me'] }, token: scopeToken('u', ['me']), scopes: ['me'] },
    });
  });
});

describe('optional verified readers', () => {
  it('put null on ctx without a credential and no scopes', async () => {
    const procedure = t.procedure.use(optionalAuth).query(({ ctx }) => ({ token: ctx.token, principal: ctx.principal }));
    expect(await callOne(procedure)).toEqual({ status: 200, value: { token: null, principal: null } });
  });

  it.each([
    { chain: 'reader, then requireScopes', procedure: t.procedure.use(optionalAuth).use(optionalAuth.requireScopes('me')) },
    { chain: 'requireScopes, then reader', procedure: t.procedure.use(optionalAuth.requireScopes('me')).use(optionalAuth) },
    { chain: 'withScopes', procedure: t.procedure.use(optionalAuth.withScopes('me')) },
  ])('refuse as not authenticated once scopes are required ($chain)', async ({ procedure }) => {
    expect(await callOne(procedure.query(() => 'reached'))).toMatchObject({ status: 401, challenge: 'Bearer', message: 'Not authenticated' });
  });

  it('refuse a token the verifier refuses with 401 invalid_token: a wrong credential is not an absent one', async () => {
    const procedure = t.procedure.use(optionalAuth).query(() => 'reached');
    expect(await callOne(procedure, { authorization: 'Bearer forged' })).toEqual({
      status: 401,
      challenge: 'Bearer error="invalid_token", error_description="The access token is invalid"',
      message: 'The access token is invalid',
    });
  });
});

describe('the verifier', () => {
  it('is called once per request, however often its reader appears, with the call signal', async () => {
    const calls: { token: string; signal: unknown }[] = [];
    const verify: TokenVerifier<TestPrincipal> = async (token, options) => {
      calls.push({ token, signal: options?.signal });
      return { subject: 's', scopes: ['me', 'items'] };
    };
    const counted = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify });
    const procedure = t.procedure.use(counted.requireScopes('me')).use(counted).use(counted.withScopes('items')).use(counted.requireScopes('me')).query(() => 'reached');
    expect(await callOne(procedure, { authorization: 'Bearer abc' })).toEqual({ status: 200, value: 'reached' });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.token).toBe('abc');
    expect(calls[0]!.signal === undefined || calls[0]!.signal instanceof AbortSignal).toBe(true);
  });

  it("is not called for a token its peek knows, and peek's principal is enforced like any other", async () => {
    const calls: string[] = [];
    const known = new Map<string, TestPrincipal>([['known-me', { subject: 'k', scopes: ['me'] }]]);
    const verify = Object.assign(
      async (token: string): Promise<TestPrincipal> => {
        calls.push(token);
        return { subject: 'v', scopes: ['me', 'admin'] };
      },
      { peek: (token: string) => known.get(token) },
    );
    const peeking = oauth2PasswordBearer({ tokenUrl: 'token', scopes, verify });
    const me = t.procedure.use(peeking.withScopes('me')).query(({ ctx }) => ctx.principal.subject);
    const admin = t.procedure.use(peeking).use(peeking.requireScopes('admin')).query(({ ctx }) => ctx.principal.subject);
    expect(await callOne(me, { authorization: 'Bearer known-me' })).toEqual({ status: 200, value: 'k' });
    expect(await callOne(admin, { authorization: 'Bearer known-me' })).toEqual(admin403);
    expect(calls).toEqual([]);
    // peek knows nothing of this token: the verifier is asked.
    expect(await callOne(admin, { authorization: 'Bearer other' })).toEqual({ status: 200, value: 'v' });
    expect(calls).toEqual(['other']);
  });

  it.each([
    { what: 'throws a plain Error', verify: async () => Promise.reject(new Error('db down')), code: 'INTERNAL_SERVER_ERROR' },
    { what: 'throws a TRPCError UNAUTHORIZED without an OAuth2 refusal', verify: async () => Promise.reject(new TRPCError({ code: 'UNAUTHORIZED' })), code: 'INTERNAL_SERVER_ERROR' },
    { what: 'returns no principal', verify: async () => ({ subject: 'x' }) as never, code: 'INTERNAL_SERVER_ERROR' },
    { what: 'returns scopes that are neither a list nor a set', verify: async () => ({ scopes: 'me' }) as never, code: 'INTERNAL_SERVER_ERROR' },
    { what: 'is unavailable (503)', verify: async () => Promise.reject(new TRPCError({ code: 'SERVICE_UNAVAILABLE' })), code: 'SERVICE_UNAVAILABLE' },
  ])('that $what is a server fault, never a 401', async ({ verify, code }) => {
    for (const autoError of [true, false]) {
      const reader = oauth2PasswordBearer({ tokenUrl: 'token', verify: verify as TokenVerifier<TestPrincipal>, autoError });
      const result = await callOne(t.procedure.use(reader).query(() => 'reached'), { authorization: 'Bearer abc' });
      expect(result).toMatchObject({ status: 500, code });
    }
  });

  it('refusals go through makeInvalidTokenError', async () => {
    const custom = oauth2PasswordBearer({
      tokenUrl: 'token',
      verify: scopeTokenVerifier('u'),
      makeInvalidTokenError: (description) => invalidTokenError(`Refused: ${description}`),
    });
    expect(custom.makeInvalidTokenError('x').message).toBe('Refused: x');
    expect(await callOne(t.procedure.use(custom).query(() => 1), { authorization: 'Bearer nope' })).toEqual({
      status: 401,
      challenge: 'Bearer error="invalid_token", error_description="Refused: The access token is invalid"',
      message: 'Refused: The access token is invalid',
    });
  });

  it('of the base reader gets the whole Authorization value, and its absence answers 403', async () => {
    const seen: string[] = [];
    const base = oauth2({
      flows: { clientCredentials: { tokenUrl: 'cc', scopes: { svc: 'Service' } } },
      verify: async (authorization) => (seen.push(authorization), { scopes: ['svc'] }),
    });
    expect(await callOne(t.procedure.use(base.withScopes('svc')).query(({ ctx }) => ctx.principal.scopes), { authorization: 'Custom xyz' })).toEqual({
      status: 200,
      value: ['svc'],
    });
    expect(seen).toEqual(['Custom xyz']);
    expect(await callOne(t.procedure.use(base.withScopes('svc')).query(() => 1))).toMatchObject({ status: 403, message: 'Not authenticated' });
  });
});

describe('scopes of a reader without verify', () => {
  const unverified = oauth2PasswordBearer({ tokenUrl: 'token', scopes });
  it.each(['requireScopes', 'withScopes'] as const)('%s throws when the procedure is defined', (method) => {
    expect(() => (unverified[method] as (...s: string[]) => unknown)('me')).toThrow(
      new TypeError(
        `${method}: the reader "OAuth2PasswordBearer" has no \`verify\`, so nothing would check these scopes: give the reader \`verify\`, or create it with \`manualScopeCheck: true\` and check the grant with assertGrantedScopes`,
      ),
    );
  });

  it('are declared and collected with manualScopeCheck: true, and a verified principal of another reader still enforces them', async () => {
    const manual = oauth2PasswordBearer({ tokenUrl: 'token', scopes, manualScopeCheck: true });
    const collected = t.procedure.use(manual).use(manual.requireScopes('admin')).query(({ ctx }) => ctx.securityScopes.scopeStr);
    expect(await callOne(collected, { authorization: 'Bearer anything' })).toEqual({ status: 200, value: 'admin' });
    const mixed = t.procedure.use(auth).use(manual.requireScopes('admin')).query(() => 'reached');
    expect(await callOne(mixed, grantsMe)).toEqual(admin403);
  });

  it('the OpenAPI declaration of a verified chain with scopes is not optional', async () => {
    const { getProcedureSecurity } = await import('../src/protocol.js');
    expect(getProcedureSecurity(t.procedure.use(optionalAuth).use(optionalAuth.requireScopes('me')).query(() => 1))?.optional).toBe(false);
    expect(getProcedureSecurity(t.procedure.use(optionalAuth).query(() => 1))?.optional).toBe(true);
  });
});

// docs/contract.md#verified-readers: `ctx.principal` is for the resolver to read. A middleware
// that changes what it grants in place (a push on its scopes) changes what the resolver reads,
// never what a later security step checks: the grant is taken when the principal is verified.
describe('a middleware that changes the principal in place', () => {
  const tt = initTRPC.context<{ headers: Record<string, string> }>().create();
  const readerOf = (scopes: () => readonly string[] | ReadonlySet<string>) =>
    oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Me', admin: 'Admin' }, verify: async () => ({ scopes: scopes() }) });
  const grants = (principal: { scopes: unknown }) => {
    const scopes = principal.scopes as string[] | Set<string>;
    if (Array.isArray(scopes)) scopes.push('admin');
    else scopes.add('admin');
  };

  it.each([
    ['an array', () => ['me']],
    ['a Set', () => new Set(['me'])],
  ] as const)('cannot grant a scope a later step requires (scopes as %s)', async (_name, scopes) => {
    const auth = readerOf(scopes);
    const derive = tt.middleware(({ ctx, next }) => (grants((ctx as unknown as { principal: { scopes: unknown } }).principal), next()));
    const router = tt.router({
      after: tt.procedure.use(auth).use(derive).use(auth.requireScopes('admin')).query(() => 'ran'),
      before: tt.procedure.use(auth.requireScopes('admin')).use(derive).use(auth).query(() => 'ran'),
    });
    const caller = tt.createCallerFactory(router)({ headers: { authorization: 'Bearer t' } });
    for (const call of [() => caller.after(), () => caller.before()]) {
      const refused = await call().catch((error: unknown) => error);
      expect((refused as TRPCError).code).toBe('FORBIDDEN');
    }
  });
});

// tRPC gives the steps after a middleware that hands on another input reader what a new call's
// would be; the principals verified before it still count (docs/contract.md#verified-readers).
describe('after a middleware that hands on another getRawInput', () => {
  const passInput = t.middleware(({ getRawInput, next }) => next({ getRawInput: async () => getRawInput() }));
  const manual = oauth2PasswordBearer({ tokenUrl: 'token', scopes, manualScopeCheck: true, schemeName: 'Manual' });
  const grantsAdmin = oauth2PasswordBearer({ tokenUrl: 'token', scopes, schemeName: 'Admin', verify: async () => ({ scopes: ['me', 'admin'] }) });

  it("checks a manualScopeCheck reader's scopes against the principal verified before", async () => {
    const chain = t.procedure.use(auth).use(passInput).use(manual.requireScopes('admin')).query(() => 'ran');
    expect(await callOne(chain, grantsMe)).toMatchObject({ status: 403, challenge: 'Bearer error="insufficient_scope", scope="admin"' });
    expect(await callOne(chain, { authorization: `Bearer ${scopeToken('u', ['admin'])}` })).toEqual({ status: 200, value: 'ran' });
  });

  it('refuses as not authenticated when the optional reader before it found no credential', async () => {
    const chain = t.procedure.use(optionalAuth).use(passInput).use(manual.requireScopes('admin')).query(() => 'ran');
    expect(await callOne(chain)).toMatchObject({ status: 401 });
  });

  it('checks every principal verified before it, not only the one whose step comes after', async () => {
    const chain = t.procedure.use(grantsAdmin).use(auth).use(passInput).use(grantsAdmin.requireScopes('admin')).query(() => 'ran');
    expect(await callOne(chain, grantsMe)).toMatchObject({ status: 403, challenge: 'Bearer error="insufficient_scope", scope="admin"' });
  });
});

// A middleware may put another credential on ctx between two steps (a token exchanged for
// another): the step after it consults its reader again and puts what it found on ctx, and the
// principal verified before still counts (docs/contract.md#verified-readers).
describe('after a middleware that puts another credential on ctx', () => {
  const allToken = scopeToken('u', ['me', 'items', 'admin']);
  const grantsAll = { authorization: `Bearer ${allToken}` };
  const exchange = t.middleware(({ next }) => next({ ctx: { headers: grantsAll } }));
  const resolver = ({ ctx }: { ctx: { principal: TestPrincipal } }) => ctx.principal.scopes;

  it("checks the later steps' scopes against the principal verified before it too", async () => {
    const chain = t.procedure.use(auth.withScopes('me')).use(exchange).use(auth.requireScopes('admin')).query(resolver);
    expect(await callOne(chain, grantsMe)).toEqual({ ...admin403, challenge: 'Bearer error="insufficient_scope", scope="me admin"' });
  });

  it('checks the new credential against the scopes required before it', async () => {
    const chain = t.procedure.use(auth.withScopes('me')).use(t.middleware(({ next }) => next({ ctx: { headers: { authorization: `Bearer ${scopeToken('u', [])}` } } }))).use(auth.requireScopes('items'));
    expect(await callOne(chain.query(resolver), grantsMe)).toMatchObject({ status: 403, challenge: 'Bearer error="insufficient_scope", scope="me items"' });
  });

  it('runs when both principals grant every scope of the chain', async () => {
    const chain = t.procedure.use(auth.withScopes('me')).use(exchange).use(auth.requireScopes('admin')).query(resolver);
    expect(await callOne(chain, grantsAll)).toEqual({ status: 200, value: ['me', 'items', 'admin'] });
  });

  it('puts the principal it checked in place of the one the reader step put, from a requireScopes step too', async () => {
    const ownToken = scopeToken('u', ['admin', 'items', 'me']);
    const chain = t.procedure
      .use(auth.withScopes('me'))
      .use(exchange)
      .use(auth.requireScopes('admin'))
      .query(({ ctx }) => ({ token: ctx.token, scopes: ctx.principal.scopes }));
    expect(await callOne(chain, { authorization: `Bearer ${ownToken}` })).toEqual({ status: 200, value: { token: allToken, scopes: ['me', 'items', 'admin'] } });
  });

  it('after a middleware handing on another getRawInput too, the principal consulted before still counts, and the resolver reads the one checked last', async () => {
    const passInput = t.middleware(({ getRawInput, next }) => next({ getRawInput: async () => getRawInput() }));
    const chain = t.procedure
      .use(auth.withScopes('me'))
      .use(t.middleware(({ next }) => next({ ctx: { headers: { authorization: `Bearer ${scopeToken('u', ['me'])}` } } })))
      .use(passInput)
      .use(auth.requireScopes('admin'))
      .query(() => 'ran');
    expect(await callOne(chain, grantsAll)).toMatchObject({ status: 403, challenge: 'Bearer error="insufficient_scope", scope="me admin"' });
    // The input handed on before the change or after it, alike.
    const after = t.procedure.use(auth.withScopes('me')).use(exchange).use(passInput).use(auth.requireScopes('admin'));
    const before = t.procedure.use(auth.withScopes('me')).use(passInput).use(exchange).use(auth.requireScopes('admin'));
    for (const steps of [after, before]) {
      const runs = steps.query(({ ctx }) => ({ token: ctx.token, scopes: ctx.principal.scopes }));
      expect(await callOne(runs, grantsMe)).toMatchObject({ status: 403, challenge: 'Bearer error="insufficient_scope", scope="me admin"' });
      const ownToken = scopeToken('u', ['admin', 'items', 'me']);
      expect(await callOne(runs, { authorization: `Bearer ${ownToken}` })).toEqual({ status: 200, value: { token: allToken, scopes: ['me', 'items', 'admin'] } });
    }
  });

  it('refuses as not authenticated when the change took the credential away from an optional reader', async () => {
    const chain = t.procedure
      .use(optionalAuth.withScopes('me'))
      .use(t.middleware(({ next }) => next({ ctx: { headers: {} } })))
      .use(optionalAuth.requireScopes('items'))
      .query(() => 'ran');
    expect(await callOne(chain, grantsAll)).toMatchObject({ status: 401, challenge: 'Bearer' });
  });
});
