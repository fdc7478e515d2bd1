import { oauth2, oauth2AuthorizationCodeBearer, oauth2PasswordBearer } from '@trpc-oauth2/core';

const scopes = { me: 'Read me', items: 'Read items' } as const;

/**
 * One reader per conformance route, configured as the FastAPI application it is compared with.
 *
 * @example
 * ```ts
 * conformanceReaders.passwordNamed.schemeName; // 'NamedPassword'
 * ```
 */
export const conformanceReaders = {
  base: oauth2(),
  baseOptional: oauth2({ autoError: false }),
  baseFlows: oauth2({
    flows: {
      clientCredentials: { tokenUrl: 'cc-token', scopes: { svc: 'Service' } },
      implicit: { authorizationUrl: 'implicit-auth', scopes: {} },
    },
    schemeName: 'ClientCreds',
    manualScopeCheck: true, // FastAPI's meaning: scopes declared, checked by no one here
  }),
  password: oauth2PasswordBearer({ tokenUrl: 'token', scopes, manualScopeCheck: true }),
  passwordOptional: oauth2PasswordBearer({ tokenUrl: 'token', scopes, autoError: false }),
  passwordNamed: oauth2PasswordBearer({
    tokenUrl: '/auth/token',
    schemeName: 'NamedPassword',
    description: 'Password flow with a custom scheme name',
  }),
  code: oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', refreshUrl: 'refresh', scopes }),
  codeOptional: oauth2AuthorizationCodeBearer({
    authorizationUrl: 'authorize',
    tokenUrl: 'token',
    schemeName: 'CodeOptional',
    autoError: false,
  }),
};
