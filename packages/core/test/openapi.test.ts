import { initTRPC } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { oauth2, oauth2AuthorizationCodeBearer, oauth2PasswordBearer } from '../src/index.js';
import { getProcedureSecurity } from '../src/protocol.js';

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
