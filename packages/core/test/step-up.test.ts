// Step-up authentication (RFC 9470) on the verified principal, through tRPC's real adapters:
// docs/contract.md#step-up-authentication.
import { initTRPC } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  assertAuthentication,
  getOAuth2Error,
  oauth2PasswordBearer,
  requireAuthentication,
  type AuthenticatedPrincipal,
} from '../src/index.js';
import { insufficientUserAuthenticationError } from '../src/errors-entry.js';
import { ADAPTERS, serveRouter, type RunningServer } from './support/serve.js';

const METADATA = 'https://api.example/.well-known/oauth-protected-resource';
const now = () => Math.floor(Date.now() / 1000);

// Tokens name their authentication event: `<acr>.<seconds ago>`, e.g. `mfa.10`.
const auth = oauth2PasswordBearer({
  tokenUrl: '/token',
  scopes: { me: 'Me' },
  verify: async (token): Promise<{ scopes: string[] } & AuthenticatedPrincipal> => {
    const [acr, ago] = token.split('.');
    return { scopes: ['me'], acr: acr === 'none' ? undefined : acr, authTime: ago === undefined || ago === '' ? undefined : now() - Number(ago) };
  },
});
const t = initTRPC.create();
const router = t.router({
  mfa: t.procedure.use(auth).use(requireAuthentication({ acrValues: ['mfa', 'hwk'] }, { resourceMetadata: METADATA })).query(() => 'ok'),
  recent: t.procedure.use(auth.withScopes('me')).use(requireAuthentication({ maxAge: 300 })).query(() => 'ok'),
  both: t.procedure.use(auth).use(requireAuthentication({ acrValues: ['mfa'], maxAge: 60 })).query(({ ctx }) => ctx.principal.acr),
});

describe.each(ADAPTERS)('through the %s adapter', (adapter) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRouter(router, adapter);
  });
  afterAll(() => server.close());
  const call = async (path: string, token: string) => {
    const response = await fetch(`${server.url}/${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, challenge: response.headers.get('www-authenticate') };
  };
  const stepUp = (params: string) =>
    `Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", ${params}`;

  it.each([
    ['mfa', 'mfa.5', 200, null],
    ['mfa', 'hwk.5', 200, null],
    ['mfa', 'pwd.5', 401, stepUp(`acr_values="mfa hwk", resource_metadata="${METADATA}"`)],
    ['mfa', 'none.5', 401, stepUp(`acr_values="mfa hwk", resource_metadata="${METADATA}"`)],
    ['recent', 'pwd.10', 200, null],
    ['recent', 'pwd.3600', 401, stepUp('max_age="300"')],
    ['recent', 'pwd.', 401, stepUp('max_age="300"')],
    // A login dated more than maxAge ahead of this server's clock (an authTime in milliseconds, say)
    ['recent', 'pwd.-3600', 401, stepUp('max_age="300"')],
    ['recent', 'pwd.-10', 200, null],
    ['both', 'mfa.10', 200, null],
    ['both', 'mfa.120', 401, stepUp('acr_values="mfa", max_age="60"')],
    ['both', 'pwd.10', 401, stepUp('acr_values="mfa", max_age="60"')],
  ] as const)('%s with %s → %i', async (path, token, status, challenge) => {
    expect(await call(path, token)).toEqual({ status, challenge });
  });
});

/** What a call came to: `ran (<acr>)`, or the stable code of its refusal. */
const outcome = (call: Promise<unknown>) =>
  call.then(
    (acr) => `ran (${String(acr)})`,
    (error: unknown) => getOAuth2Error(error)?.code,
  );

/** A caller of `pay` in a router of its own, with this token. */
const payAs = <$Router extends { createCaller: (ctx: { headers: Record<string, string> }) => { pay: () => Promise<unknown> } }>(router: $Router, token: string) =>
  outcome(router.createCaller({ headers: { authorization: `Bearer ${token}` } }).pay());

// A middleware of the application may rewrite ctx.principal (to act as another user, say): the
// step-up checks what the chain's reader verified, as every security step does
// (docs/contract.md#verified-readers).
describe('requireAuthentication after a middleware that rewrites ctx.principal', () => {
  const t2 = initTRPC.context<{ headers: Record<string, string> }>().create();
  const claimsMfa = t2.middleware(({ ctx, next }) => next({ ctx: { principal: { ...(ctx as unknown as { principal: object }).principal, acr: 'mfa', authTime: now() } } }));
  const pay = t2.procedure.use(auth).use(claimsMfa).use(requireAuthentication({ acrValues: ['mfa'], maxAge: 60 })).query(({ ctx }) => ctx.principal.acr);
  const call = (token: string) => payAs(t2.router({ pay }), token);

  it('refuses the token the reader verified, whatever the rewritten principal says', async () => {
    expect(await call('pwd.10')).toBe('ERR_INSUFFICIENT_USER_AUTHENTICATION');
    expect(await call('mfa.3600')).toBe('ERR_INSUFFICIENT_USER_AUTHENTICATION');
    // A token that meets it runs, and the resolver sees what the middleware put on ctx.
    expect(await call('hwk.10')).toBe('ERR_INSUFFICIENT_USER_AUTHENTICATION');
    expect(await call('mfa.10')).toBe('ran (mfa)');
  });
});

// Before the reader, the step-up can only see the principal the application put on ctx: its
// requirement stays in the request's security state, and the reader's principal, once verified,
// must meet it too (docs/contract.md#step-up-authentication).
describe('requireAuthentication before the reader, after a middleware that puts a principal on ctx', () => {
  const t2 = initTRPC.context<{ headers: Record<string, string> }>().create();
  const session = t2.middleware(({ next }) => next({ ctx: { principal: { acr: 'mfa', authTime: now() } as AuthenticatedPrincipal } }));
  const pay = t2.procedure.use(session).use(requireAuthentication({ acrValues: ['mfa'] })).use(auth).query(({ ctx }) => ctx.principal.acr);
  const call = (token: string) => payAs(t2.router({ pay }), token);

  it("checks the reader's principal too, whatever the application's says", async () => {
    expect(await call('pwd.10')).toBe('ERR_INSUFFICIENT_USER_AUTHENTICATION');
    expect(await call('none.10')).toBe('ERR_INSUFFICIENT_USER_AUTHENTICATION');
    expect(await call('mfa.10')).toBe('ran (mfa)');
  });
});

// A call made with a ctx spread from another call's is another call: the outer call's principals
// never meet its step-up (docs/contract.md#verified-readers).
describe('requireAuthentication in a call made with a ctx spread from another call', () => {
  const t2 = initTRPC.context<{ headers: Record<string, string> }>().create();
  const optional = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Me' }, autoError: false, verify: async () => ({ scopes: ['me'], acr: 'pwd' }) });
  // The inner calls' ctx holds a principal: the outer call's, spread into it.
  const t3 = initTRPC.context<{ headers: Record<string, string>; principal: AuthenticatedPrincipal | null }>().create();
  const inner = t3.router({
    // The step-up first, then the reader: the spread ctx holds the outer call's principal.
    stepUpFirst: t3.procedure.use(requireAuthentication({ acrValues: ['mfa'] })).use(auth).query(({ ctx }) => ctx.principal.acr),
    // An optional reader that finds no credential, then the step-up.
    optionalThenStepUp: t3.procedure.use(optional).use(requireAuthentication({ acrValues: ['mfa'] })).query(({ ctx }) => String(ctx.principal)),
  });
  const callInner = t3.createCallerFactory(inner);
  const outer = t2.router({
    nested: t2.procedure
      .use(auth)
      .input((value) => value as { headers: Record<string, string>; procedure: 'stepUpFirst' | 'optionalThenStepUp' })
      .query(({ ctx, input }) => callInner({ ...ctx, headers: input.headers })[input.procedure]()),
  });
  const call = (headers: Record<string, string>, procedure: 'stepUpFirst' | 'optionalThenStepUp') =>
    outcome(t2.createCallerFactory(outer)({ headers: { authorization: 'Bearer mfa.10' } }).nested({ headers, procedure }));

  it("refuses the inner call's own principal, though the outer call's meets the requirement", async () => {
    expect(await call({ authorization: 'Bearer pwd.10' }, 'stepUpFirst')).toBe('ERR_INSUFFICIENT_USER_AUTHENTICATION');
    expect(await call({ authorization: 'Bearer mfa.10' }, 'stepUpFirst')).toBe('ran (mfa)');
  });

  it('refuses an inner call without a credential, though the outer call verified one', async () => {
    expect(await call({}, 'optionalThenStepUp')).toBe('ERR_INSUFFICIENT_USER_AUTHENTICATION');
  });
});

// A middleware may hand the next steps another `getRawInput` (one that normalises the input):
// the call goes on with the principals its readers verified, never the `ctx.principal` a
// middleware rewrote meanwhile.
describe('requireAuthentication after a middleware that hands on another getRawInput', () => {
  const t2 = initTRPC.context<{ headers: Record<string, string> }>().create();
  const claimsMfa = t2.middleware(({ ctx, next }) => next({ ctx: { principal: { ...(ctx as unknown as { principal: object }).principal, acr: 'mfa', authTime: now() } } }));
  const passInput = t2.middleware(({ getRawInput, next }) => next({ getRawInput: async () => getRawInput() }));
  const router = t2.router({
    pay: t2.procedure.use(auth).use(claimsMfa).use(passInput).use(requireAuthentication({ acrValues: ['mfa'] })).query(({ ctx }) => ctx.principal.acr),
  });
  const call = (token: string) => payAs(router, token);

  it('checks the principal the reader verified', async () => {
    expect(await call('pwd.10')).toBe('ERR_INSUFFICIENT_USER_AUTHENTICATION');
    expect(await call('mfa.10')).toBe('ran (mfa)');
  });
});

describe('assertAuthentication', () => {
  // The invariant: a principal passes exactly when its acr is one required and its login is recent enough.
  it('passes exactly the principals that meet the requirement (property)', () => {
    const acr = fc.constantFrom('a', 'b', 'c');
    fc.assert(
      fc.property(
        fc.option(fc.uniqueArray(acr, { minLength: 1 }), { nil: undefined }),
        fc.option(fc.nat(1_000), { nil: undefined }),
        fc.option(acr, { nil: undefined }),
        // A negative `ago` is a login dated ahead of this server's clock: within maxAge it is clock skew.
        fc.option(fc.integer({ min: -2_000, max: 2_000 }), { nil: undefined }),
        (acrValues, maxAge, principalAcr, ago) => {
          fc.pre(acrValues !== undefined || maxAge !== undefined);
          const principal = { acr: principalAcr, authTime: ago === undefined ? undefined : now() - ago };
          const expected =
            (acrValues === undefined || (principalAcr !== undefined && acrValues.includes(principalAcr))) &&
            (maxAge === undefined || (ago !== undefined && Math.abs(ago) <= maxAge));
          let passed = true;
          try {
            assertAuthentication(principal, { acrValues, maxAge });
          } catch (error) {
            expect(getOAuth2Error(error)?.code).toBe('ERR_INSUFFICIENT_USER_AUTHENTICATION');
            passed = false;
          }
          expect(passed).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a login dated more than maxAge ahead of the clock, as an authTime in milliseconds is', () => {
    const requirement = { maxAge: 300 };
    expect(() => assertAuthentication({ authTime: Date.now() }, requirement)).toThrow('A different authentication level is required');
    expect(() => assertAuthentication({ authTime: now() + 301 }, requirement)).toThrow('A different authentication level is required');
    expect(() => assertAuthentication({ authTime: now() + 5 }, requirement)).not.toThrow();
  });

  it('builds the refusal with the given factory', () => {
    const makeError = (requirement: { acrValues?: readonly string[] }) =>
      insufficientUserAuthenticationError(requirement, { description: 'Use your security key' });
    expect(() => assertAuthentication({}, { acrValues: ['hwk'] }, { makeError })).toThrow('Use your security key');
  });

  it('refuses, when the procedure is defined, a requirement no challenge can carry', () => {
    expect(() => requireAuthentication({})).toThrow(TypeError);
    expect(() => requireAuthentication({ acrValues: ['a b'] })).toThrow(TypeError);
    expect(() => requireAuthentication({ maxAge: -1 })).toThrow(TypeError);
  });
});
