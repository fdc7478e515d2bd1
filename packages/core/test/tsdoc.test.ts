import { describe, expect, it } from 'vitest';
import * as protocol from '../src/protocol.js';
import * as publicEntry from '../src/index.js';
import { exportedDocs } from './support/exported-docs.js';

/** `@trpc-oauth2/core`: what a tRPC application needs, and nothing else (the token endpoint included). */
const PUBLIC_VALUES = [
  'OAuth2Error',
  'TOKEN_RESPONSE_HEADERS',
  'anyOf',
  'assertGrantedScopes',
  'authenticateTokenClient',
  'authorizationCodeGrantForm',
  'bearerNotAuthenticatedError',
  'clientCredentialsGrantForm',
  'credentialInUrlError',
  'defineGrantForm',
  'getOAuth2Error',
  'insufficientScopeError',
  'invalidTokenError',
  'isCodeVerifier',
  'oauth2',
  'oauth2AuthorizationCodeBearer',
  'oauth2ErrorData',
  'oauth2OnError',
  'oauth2PasswordBearer',
  'oauth2ResponseMeta',
  'passwordGrantForm',
  'passwordRequestForm',
  'passwordRequestFormStrict',
  'readClientCredentials',
  'refreshTokenGrantForm',
  'revocationEndpoint',
  's256CodeChallenge',
  'tokenEndpoint',
  'tokenError',
  'tokenErrorResponse',
  'tokenExpiredError',
  'tokenResponseSchema',
  'verifyCodeVerifier',
];
const PUBLIC_TYPES = [
  'AnyOfReader',
  'AuthenticateClient',
  'AuthorizationCodeRequestForm',
  'BuiltInGrants',
  'ClientCredentials',
  'ClientCredentialsRequestForm',
  'DefinedGrantForm',
  'DefinedGrantFormInput',
  'GrantField',
  'GrantForm',
  'GrantFormFields',
  'GrantHandler',
  'GrantHandlerOptions',
  'GrantRequestFormBase',
  'GrantedScopes',
  'OAuth2AuthorizationCodeBearerOptions',
  'OAuth2ErrorCode',
  'OAuth2ErrorData',
  'OAuth2ErrorInit',
  'OAuth2ErrorStatus',
  'OAuth2Options',
  'OAuth2PasswordBearerOptions',
  'OAuthFlows',
  'PasswordRequestForm',
  'PasswordRequestFormInput',
  'PasswordRequestFormStrict',
  'PasswordRequestFormStrictInput',
  'Principal',
  'ReaderContext',
  'ReaderWithScopes',
  'RefreshTokenRequestForm',
  'RevocationEndpointOptions',
  'RevocationEndpointProcedure',
  'RevocationRequestForm',
  'RevocationRequestFormInput',
  'ScopeMap',
  'ScopesMiddleware',
  'SecurityReader',
  'SecurityReaderOptions',
  'SecurityScopes',
  'TokenEndpointBuilder',
  'TokenEndpointOptions',
  'TokenEndpointProcedure',
  'TokenErrorCode',
  'TokenErrorOptions',
  'TokenErrorResponse',
  'TokenRequestCall',
  'TokenResponse',
  'TokenVerifier',
  'VerifyOptions',
  'VerifyRequest',
];

/** `@trpc-oauth2/core/protocol`: what `@trpc-oauth2/openapi` reads from a secured router. */
const PROTOCOL_VALUES = ['FORM_FIELDS', 'SECURITY', 'TOKEN_ENDPOINT', 'expandDeclaration', 'getProcedureSecurity', 'getTokenEndpoint', 'headersFromContext', 'readHeader'];
const PROTOCOL_TYPES = ['DeclaredGrant', 'FormField', 'HeadersLike', 'OAuth2SecurityScheme', 'ProcedureSecurity', 'SecurityDeclaration', 'TokenEndpointDeclaration'];

const entries = [
  { entry: '@trpc-oauth2/core', file: '../src/index.ts', module: publicEntry, values: PUBLIC_VALUES, types: PUBLIC_TYPES },
  { entry: '@trpc-oauth2/core/protocol', file: '../src/protocol.ts', module: protocol, values: PROTOCOL_VALUES, types: PROTOCOL_TYPES },
];

describe.each(entries)('$entry', ({ file, module, values, types }) => {
  const exported = exportedDocs(new URL(file, import.meta.url).pathname);

  it('exports exactly these values at run time', () => {
    expect(Object.keys(module).sort()).toEqual(values);
  });

  it('exports exactly these names, types included', () => {
    expect(exported.map((symbol) => symbol.name).sort()).toEqual([...values, ...types].sort());
  });

  it.each(exported)('$name has a description and an @example', ({ documented, tags }) => {
    expect(documented).toBe(true);
    expect(tags).toContain('example');
  });
});

describe('the RFC grammar', () => {
  it('stays private: no entry exports its constants', () => {
    const names = Object.keys({ ...publicEntry, ...protocol });
    for (const name of ['BEARER_SCHEME', 'SCOPE_TOKEN', 'SCHEME_SEPARATOR', 'SCOPE_SEPARATOR', 'PASSWORD_GRANT_TYPE', 'NOT_AUTHENTICATED']) {
      expect(names).not.toContain(name);
    }
  });
});
