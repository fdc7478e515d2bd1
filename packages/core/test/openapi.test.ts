import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import {
  anyOf,
  getOAuth2Error,
  oauth2,
  oauth2AuthorizationCodeBearer,
  oauth2PasswordBearer,
  requireAuthentication,
  type AuthenticatedPrincipal,
} from '../src/index.js';
import { getProcedureSecurity, SECURITY } from '../src/protocol.js';

const t = initTRPC.create();
const password = oauth2PasswordBearer({ tokenUrl: 'token', refreshUrl: 'refresh', scopes: { me: 'Me', items: 'Items' }, manualScopeCheck: true });
const optional = oauth2PasswordBearer({ tokenUrl: 'token', autoError: false, schemeName: 'Optional', description: 'Optional login' });
const code = oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', scopes: { read: 'Read' }, manualScopeCheck: true });
const base = oauth2({ flows: { implicit: { authorizationUrl: 'implicit', scopes: {} } } });

const router = t.router({
  open: t.procedure.query(() => 1),
  password: t.procedure.use(password).query(() => 1),
  nested: t.procedure.use(password).use(password.requireScopes('me')).use(password.requireScopes('items', 'me')).query(() => 1),
  optional: t.procedure.use(optional).query(() => 1),
  mixed: t.procedure.use(optional).use(code).use(code.requireScopes('read')).query(() => 1),
  both: t.procedure.use(password).use(code).use(password.requireScopes('items')).use(code.requireScopes('read')).query(() => 1),
  concat: t.procedure.concat(base.procedure).query(() => 1),
  oneStep: t.procedure.use(password.withScopes('me', 'items')).query(() => 1),
});

describe('getProcedureSecurity', () => {
  it('is undefined for a procedure without a reader', () => {
    expect(getProcedureSecurity(router.open)).toBeUndefined();
  });

  it.each([
    { path: 'password', requirement: { OAuth2PasswordBearer: [] }, optional: false },
    { path: 'nested', requirement: { OAuth2PasswordBearer: ['me', 'items'] }, optional: false },
    { path: 'optional', requirement: { Optional: [] }, optional: true },
    { path: 'mixed', requirement: { Optional: [], OAuth2AuthorizationCodeBearer: ['read'] }, optional: false },
    { path: 'both', requirement: { OAuth2PasswordBearer: ['items'], OAuth2AuthorizationCodeBearer: ['read'] }, optional: false },
    { path: 'concat', requirement: { OAuth2: [] }, optional: false },
    { path: 'oneStep', requirement: { OAuth2PasswordBearer: ['me', 'items'] }, optional: false },
  ] as const)('$path requires $requirement (optional: $optional)', ({ path, requirement, optional: isOptional }) => {
    const security = getProcedureSecurity(router[path]);
    expect(security?.requirement).toEqual(requirement);
    expect(security?.optional).toBe(isOptional);
  });

  it('carries each scheme object as docs/contract.md#openapi shapes it', () => {
    expect(getProcedureSecurity(router.both)?.schemes).toEqual({
      OAuth2PasswordBearer: {
        type: 'oauth2',
        flows: { password: { tokenUrl: 'token', refreshUrl: 'refresh', scopes: { me: 'Me', items: 'Items' } } },
      },
      OAuth2AuthorizationCodeBearer: {
        type: 'oauth2',
        flows: { authorizationCode: { authorizationUrl: 'authorize', tokenUrl: 'token', scopes: { read: 'Read' } } },
      },
    });
    expect(optional.securityScheme).toEqual({
      type: 'oauth2',
      description: 'Optional login',
      flows: { password: { tokenUrl: 'token', scopes: {} } },
    });
    expect(oauth2().securityScheme).toEqual({ type: 'oauth2', flows: {} });
  });
});

describe('getProcedureSecurity: what the chain enforces (docs/contract.md#openapi)', () => {
  const scopes = { me: 'Me', items: 'Items' };
  // Principals that may name their login, for a step-up; only the declarations are read here.
  const verify = async (): Promise<{ scopes: string[] } & AuthenticatedPrincipal> => ({ scopes: [] });
  const reader = (schemeName: string) => oauth2PasswordBearer({ tokenUrl: `token-${schemeName}`, scopes, schemeName, verify });
  const [a, b, c, x, y, z] = [reader('A'), reader('B'), reader('C'), reader('X'), reader('Y'), reader('Z')];
  const optionalA = oauth2PasswordBearer({ tokenUrl: 'token-A', scopes, schemeName: 'A', verify, autoError: false });
  const challengesOf = (security: ReturnType<typeof getProcedureSecurity>) =>
    [...security!.notAuthenticatedErrors, ...security!.stepUpErrors].map((make) => getOAuth2Error(make())?.headers['WWW-Authenticate']);

  it('a step-up makes an optional reader required, and its refusal is documented', () => {
    const security = getProcedureSecurity(t.procedure.use(optionalA).use(requireAuthentication({ acrValues: ['mfa'] })).query(() => 1));
    expect(security).toMatchObject({ requirements: [{ A: [] }], optional: false });
    expect(challengesOf(security)).toEqual(['Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="mfa"']);
    // With a required reader, both refusals: no token, and a login that does not meet it.
    expect(challengesOf(getProcedureSecurity(t.procedure.use(a).use(requireAuthentication({ maxAge: 60 })).query(() => 1)))).toEqual([
      'Bearer',
      'Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", max_age="60"',
    ]);
  });

  it("a member's own step narrows its anyOf group to the schemes that pass it", () => {
    const group = anyOf(a, b);
    expect(getProcedureSecurity(t.procedure.use(group).use(a.requireScopes('me')).query(() => 1))?.requirements).toEqual([{ A: ['me'] }]);
    expect(getProcedureSecurity(t.procedure.use(group).use(c).query(() => 1))?.requirements).toEqual([{ A: [], C: [] }, { B: [], C: [] }]);
    // Two groups sharing a member: that member alone, or one of each other.
    expect(getProcedureSecurity(t.procedure.use(group).use(anyOf(a, c)).query(() => 1))?.requirements).toEqual([{ A: [] }, { B: [], C: [] }]);
  });

  it("a nested anyOf group accepts its inner group's schemes: each is an alternative", () => {
    const nested = anyOf(anyOf(x, y), z);
    expect(nested[SECURITY].alternatives?.map(({ schemeName }) => schemeName)).toEqual(['Y', 'Z']);
    const security = getProcedureSecurity(t.procedure.use(nested).use(nested.requireScopes('me')).query(() => 1));
    expect(security?.requirements).toEqual([{ X: ['me'] }, { Y: ['me'] }, { Z: ['me'] }]);
    expect(Object.keys(security!.schemes)).toEqual(['X', 'Y', 'Z']);
  });

  it("scopes required of an optional verified reader make its not-authenticated error part of the chain's", () => {
    const security = getProcedureSecurity(t.procedure.use(optionalA).use(optionalA.requireScopes('me')).query(() => 1));
    expect(security).toMatchObject({ requirements: [{ A: ['me'] }], optional: false });
    expect(challengesOf(security)).toEqual(['Bearer']);
    // Without scopes it stays optional and refuses nothing.
    expect(challengesOf(getProcedureSecurity(t.procedure.use(optionalA).query(() => 1)))).toEqual([]);
  });

  it('two verified readers are one requirement: both schemes, each with every scope of the chain', () => {
    const security = getProcedureSecurity(t.procedure.use(a).use(c).use(a.requireScopes('items')).use(c.requireScopes('me')).query(() => 1));
    expect(security?.requirements).toEqual([{ A: ['items', 'me'], C: ['items', 'me'] }]);
    expect(security?.requirement).toEqual({ A: ['items', 'me'], C: ['items', 'me'] });
    // Unverified readers keep one requirement per scheme, with their own scopes.
    expect(getProcedureSecurity(router.both)?.requirements).toEqual([{ OAuth2PasswordBearer: ['items'] }, { OAuth2AuthorizationCodeBearer: ['read'] }]);
  });
});
