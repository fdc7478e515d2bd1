/** `anyOf`: one verified reader made of several (docs/contract.md#verified-readers); every order is in property/verified-chains. */
import { initTRPC, TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { anyOf, getOAuth2Error, oauth2, oauth2AuthorizationCodeBearer, oauth2PasswordBearer, type TokenVerifier } from '../src/index.js';
import { getProcedureSecurity, SECURITY } from '../src/protocol.js';
import { foreignTokenError, invalidTokenError } from '../src/errors-entry.js';
import { isForeignTokenError } from '../src/errors.js';
import { scopeToken, scopeTokenVerifier, type TestPrincipal } from './support/scope-tokens.js';

const t = initTRPC.context<{ headers?: Record<string, string> }>().create();
const scopes = { me: 'Me', items: 'Items' };
const own = oauth2PasswordBearer({ tokenUrl: '/token', scopes, schemeName: 'Own', verify: scopeTokenVerifier('own') });
const external = oauth2AuthorizationCodeBearer({ authorizationUrl: '/auth', tokenUrl: '/oidc/token', scopes, schemeName: 'External', verify: scopeTokenVerifier('ext') });
const either = anyOf(own, external);
const bearer = (issuer: string, granted: string[]) => ({ authorization: `Bearer ${scopeToken(issuer, granted)}` });

async function call(procedure: unknown, headers: Record<string, string> = {}) {
  const caller = t.createCallerFactory(t.router({ q: procedure as never }))({ headers }) as { q: () => Promise<unknown> };
  return caller.q().then(
    (value) => ({ status: 200, value }),
    (error: unknown) => {
      const cause = getOAuth2Error(error);
      return cause ? { status: cause.status, challenge: cause.headers['WWW-Authenticate'] } : { status: 500, code: (error as TRPCError).code };
    },
  );
}
const items = t.procedure.use(either).use(either.requireScopes('me')).use(either.requireScopes('items')).query(({ ctx }) => ctx.principal);
const itemsScopesFirst = t.procedure.use(either.requireScopes('me', 'items')).use(either).query(({ ctx }) => ctx.principal);

describe('anyOf', () => {
  it.each([
    ['the first reader\'s token', bearer('own', ['me', 'items']), { status: 200, value: { subject: 'own', scopes: ['me', 'items'] } }],
    ['the second reader\'s token', bearer('ext', ['me', 'items']), { status: 200, value: { subject: 'ext', scopes: ['me', 'items'] } }],
    ['a token that grants too little', bearer('ext', ['me']), { status: 403, challenge: 'Bearer error="insufficient_scope", scope="me items"' }],
    ['a token neither accepts', bearer('other', ['me', 'items']), { status: 401, challenge: 'Bearer error="invalid_token", error_description="The access token is invalid"' }],
    ['no credential', {}, { status: 401, challenge: 'Bearer' }],
  ])('answers %s the same whatever the order of the chain', async (_name, headers, expected) => {
    expect(await call(items, headers)).toEqual(expected);
    expect(await call(itemsScopesFirst, headers)).toEqual(expected);
  });

  it("answers a token every reader refuses with the refusal of a reader it was meant for, not one that says it is another issuer's", async () => {
    const readerOf = (schemeName: string, refusal: () => never) =>
      oauth2AuthorizationCodeBearer({ authorizationUrl: '/a', tokenUrl: '/t', scopes, schemeName, verify: (async () => refusal()) as TokenVerifier<TestPrincipal> });
    const foreign = readerOf('Foreign', () => {
      throw foreignTokenError('The access token was issued by another issuer');
    });
    const audience = readerOf('Audience', () => {
      throw invalidTokenError('The access token is meant for another audience');
    });
    const expired = readerOf('Expired', () => {
      throw invalidTokenError('The access token expired');
    });
    const challengeOf = (description: string) => `Bearer error="invalid_token", error_description="${description}"`;
    const answer = (procedure: unknown) => call(procedure, bearer('ext', ['me']));
    // Whatever the order: the foreign refusal gives way.
    expect(await answer(t.procedure.use(anyOf(foreign, audience)).query(() => 'ok'))).toEqual({ status: 401, challenge: challengeOf('The access token is meant for another audience') });
    expect(await answer(t.procedure.use(anyOf(audience, foreign)).query(() => 'ok'))).toEqual({ status: 401, challenge: challengeOf('The access token is meant for another audience') });
    // Among the others, and among foreign ones alone, the first reader's.
    expect(await answer(t.procedure.use(anyOf(foreign, expired, audience)).query(() => 'ok'))).toEqual({ status: 401, challenge: challengeOf('The access token expired') });
    const other = readerOf('Other', () => {
      throw foreignTokenError('Another issuer, said otherwise');
    });
    expect(await answer(t.procedure.use(anyOf(foreign, other)).query(() => 'ok'))).toEqual({
      status: 401,
      challenge: challengeOf('The access token was issued by another issuer'),
    });
    // A foreign refusal is the 401 of any other refusal, wrapped by tRPC or not.
    expect(isForeignTokenError(foreignTokenError('x'))).toBe(true);
    expect(isForeignTokenError(new TRPCError({ code: 'UNAUTHORIZED', cause: foreignTokenError('x') }))).toBe(true);
    expect(isForeignTokenError(invalidTokenError('x'))).toBe(false);
    expect(getOAuth2Error(foreignTokenError('x'))).toMatchObject({ status: 401, code: 'ERR_INVALID_TOKEN', error: 'invalid_token' });
  });

  it('answers 503 when no reader accepts and one could not answer, since the token may be good', async () => {
    const down: TokenVerifier<TestPrincipal> = async () => {
      throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'The key set is unavailable' });
    };
    const flaky = anyOf(own, oauth2AuthorizationCodeBearer({ authorizationUrl: '/a', tokenUrl: '/t', scopes, schemeName: 'Down', verify: down }));
    const procedure = t.procedure.use(flaky).query(({ ctx }) => ctx.principal);
    expect(await call(procedure, bearer('ext', ['me']))).toEqual({ status: 500, code: 'SERVICE_UNAVAILABLE' });
    // The reader that does answer still lets its own tokens in.
    expect(await call(procedure, bearer('own', ['me']))).toEqual({ status: 200, value: { subject: 'own', scopes: ['me'] } });
  });

  it('is optional only when every reader is', async () => {
    const optional = (name: string, issuer: string) =>
      oauth2PasswordBearer({ tokenUrl: '/t', scopes, schemeName: name, autoError: false, verify: scopeTokenVerifier(issuer) });
    const both = anyOf(optional('A', 'own'), optional('B', 'ext'));
    expect(both.autoError).toBe(false);
    expect(await call(t.procedure.use(both).query(({ ctx }) => ctx.principal), {})).toEqual({ status: 200, value: null });
    // Required scopes make authentication required, as for any verified reader.
    expect(await call(t.procedure.use(both.withScopes('me')).query(() => 'reached'), {})).toEqual({ status: 401, challenge: 'Bearer' });
    expect(anyOf(optional('A', 'own'), external).autoError).toBe(true);
  });

  it('documents each reader\'s scheme as an alternative requirement with the same scopes', () => {
    expect(getProcedureSecurity(items)).toMatchObject({
      schemes: { Own: own.securityScheme, External: external.securityScheme },
      requirement: { Own: ['me', 'items'], External: ['me', 'items'] },
      optional: false,
    });
    expect(either[SECURITY]).toMatchObject({ schemeName: 'Own', alternatives: [{ schemeName: 'External', scheme: external.securityScheme }] });
  });

  describe("a cache's peek", () => {
    /** A verifier of `issuer`'s tokens that counts its calls, remembering the tokens in `known` (answered by its `peek`). */
    const counted = (issuer: string, known: Set<string>, calls: string[]): TokenVerifier<TestPrincipal> =>
      Object.assign(
        async (token: string) => {
          calls.push(token);
          return scopeTokenVerifier(issuer)(token);
        },
        { peek: (token: string): TestPrincipal | undefined => (known.has(token) ? { subject: `${issuer} (remembered)`, scopes: ['me', 'items'] } : undefined) },
      );

    it("is the first reader's: a token it remembers costs no verification, whatever the order of the chain", async () => {
      const calls: string[] = [];
      const remembered = scopeToken('own', ['me']);
      const first = oauth2PasswordBearer({ tokenUrl: '/t', scopes, schemeName: 'First', verify: counted('own', new Set([remembered]), calls) });
      const group = anyOf(first, external);
      for (const procedure of [
        t.procedure.use(group.withScopes('me', 'items')).query(({ ctx }) => ctx.principal),
        t.procedure.use(group.requireScopes('items')).use(group).query(({ ctx }) => ctx.principal),
      ]) {
        expect(await call(procedure, { authorization: `Bearer ${remembered}` })).toEqual({ status: 200, value: { subject: 'own (remembered)', scopes: ['me', 'items'] } });
      }
      expect(calls).toEqual([]);
      // A token it does not remember is verified, by the first reader and then the second.
      expect(await call(t.procedure.use(group).query(({ ctx }) => ctx.principal), bearer('ext', ['me']))).toEqual({ status: 200, value: { subject: 'ext', scopes: ['me'] } });
      expect(calls).toEqual([scopeToken('ext', ['me'])]);
    });

    it("never answers from a later reader's peek: the first reader, asked first, may accept the token", async () => {
      const calls: string[] = [];
      // Both readers accept `own` tokens; only the second remembers this one, granting more.
      const token = scopeToken('own', ['me']);
      const first = oauth2PasswordBearer({ tokenUrl: '/t', scopes, schemeName: 'First', verify: scopeTokenVerifier('own') });
      const second = oauth2PasswordBearer({ tokenUrl: '/t2', scopes, schemeName: 'Second', verify: counted('own', new Set([token]), calls) });
      const group = anyOf(first, second);
      const procedure = t.procedure.use(group.withScopes('items')).query(() => 'reached');
      expect(await call(procedure, { authorization: `Bearer ${token}` })).toEqual({ status: 403, challenge: 'Bearer error="insufficient_scope", scope="items"' });
      expect(calls).toEqual([]);
    });
  });

  it.each([
    ['the first', 0],
    ['the second', 1],
  ])('its verifiers see the URL under the origin and path prefix %s reader sets, the other setting none', async (_, index) => {
    const urls: string[] = [];
    const seeing = (issuer: string): TokenVerifier<TestPrincipal> => async (token, options) => (urls.push(options?.request.url ?? ''), scopeTokenVerifier(issuer)(token));
    const publicUrl = (set: boolean) => (set ? { origin: 'https://API.example', pathPrefix: '/edge/' } : {});
    const first = oauth2PasswordBearer({ tokenUrl: '/t', scopes, schemeName: 'First', ...publicUrl(index === 0), verify: seeing('own') });
    const second = oauth2PasswordBearer({ tokenUrl: '/t2', scopes, schemeName: 'Second', ...publicUrl(index === 1), verify: seeing('ext') });
    const group = anyOf(first, second);
    const router = t.router({ me: t.procedure.use(group).query(({ ctx }) => ctx.principal.subject) });
    expect(await t.createCallerFactory(router)({ headers: bearer('ext', ['me']) }).me()).toBe('ext');
    expect(urls).toEqual(['https://api.example/edge/me', 'https://api.example/edge/me']);
  });

  it('refuses at definition time what it cannot combine', () => {
    const unverified = oauth2PasswordBearer({ tokenUrl: '/t', scopes, schemeName: 'Plain' });
    expect(() => anyOf(own, unverified as never)).toThrow('anyOf: the reader "Plain" has no `verify`');
    expect(() => anyOf(own, (() => {}) as never)).toThrow('anyOf: argument 2 is not a reader of this library');
    expect(() => (anyOf as (...readers: unknown[]) => unknown)(own)).toThrow('anyOf needs at least two readers');
    expect(() => anyOf(own, own)).toThrow('anyOf: two readers share a scheme name (Own, Own)');
    const base = oauth2({ flows: { clientCredentials: { tokenUrl: 'cc', scopes } }, schemeName: 'Base', verify: scopeTokenVerifier('own') });
    expect(() => anyOf(own, base)).toThrow('anyOf: every reader must put the same ctx key');
    // A scope that one reader does not declare cannot be required of the group.
    const wider = oauth2PasswordBearer({ tokenUrl: '/t', scopes: { ...scopes, admin: 'Admin' }, schemeName: 'Wider', verify: scopeTokenVerifier('own') });
    expect(() => anyOf(wider, external).requireScopes('admin' as never)).toThrow();
    // One URL is built for every reader's verifier (and DPoP proof): readers that set two cannot be one group.
    const at = (schemeName: string, origin: string | ((ctx: object) => string), pathPrefix?: string) =>
      oauth2PasswordBearer({ tokenUrl: '/t', scopes, schemeName, origin, ...(pathPrefix === undefined ? {} : { pathPrefix }), verify: scopeTokenVerifier('own') });
    expect(() => anyOf(at('A', 'https://a.example'), at('B', 'https://b.example'))).toThrow('anyOf: the readers A, B do not agree on their public URL');
    expect(() => anyOf(at('A', 'https://a.example', '/x'), at('B', 'https://a.example', '/y'))).toThrow('do not agree on their public URL');
    expect(() => anyOf(at('A', () => 'https://a.example'), at('B', () => 'https://a.example'))).toThrow('do not agree on their public URL');
    // The same origin in two spellings, or one function, is one origin.
    const fromCtx = () => 'https://a.example';
    expect(() => anyOf(at('A', 'https://A.example:443/', '/x/'), at('B', 'https://a.example', '/x'))).not.toThrow();
    expect(() => anyOf(at('A', fromCtx), at('B', fromCtx))).not.toThrow();
  });
});
