import { describe, expect, it } from 'vitest';
import * as protocol from '../src/protocol.js';
import * as publicEntry from '../src/index.js';
import * as tokenEndpointEntry from '../src/token-endpoint/index.js';
import * as errorsEntry from '../src/errors-entry.js';
import * as dpopEntry from '../src/dpop/index.js';
import { exportedDocs, missingDocs } from '@trpc-oauth2/test-kit';

/** `@trpc-oauth2/core`: what a tRPC application needs to secure its procedures, and nothing else. */
const PUBLIC_VALUES = [
  'OAuth2Error',
  'anyOf',
  'assertAuthentication',
  'assertGrantedScopes',
  'getOAuth2Error',
  'oauth2',
  'oauth2AuthorizationCodeBearer',
  'oauth2Bearer',
  'oauth2OnError',
  'oauth2PasswordBearer',
  'oauth2ResponseMeta',
  'passwordRequestForm',
  'passwordRequestFormStrict',
  'readClientCredentials',
  'requireAuthentication',
];
const PUBLIC_TYPES = [
  'AnyOfReader',
  'AuthenticatedPrincipal',
  'ClientCredentials',
  'GrantedScopes',
  'ImpliedScopes',
  'NeededContext',
  'OAuth2AuthorizationCodeBearerOptions',
  'OAuth2BearerOptions',
  'OAuth2Options',
  'OAuth2PasswordBearerOptions',
  'PasswordRequestForm',
  'PasswordRequestFormInput',
  'PasswordRequestFormStrict',
  'PasswordRequestFormStrictInput',
  'Principal',
  'ReaderContext',
  'ReaderWithScopes',
  'ResponseMetaResult',
  'ScopeCheckReader',
  'ScopeImplications',
  'ScopesMiddleware',
  'SecurityReader',
  'SecurityReaderOptions',
  'SecurityScopes',
  'StepUpOptions',
  'StreamContext',
  'TokenConfirmation',
  'TokenVerifier',
  'VerifyOptions',
  'VerifyRequest',
];

/** `@trpc-oauth2/core/errors`: the factory of every refusal a reader answers. */
const ERRORS_VALUES = [
  'OAuth2Error',
  'bearerNotAuthenticatedError',
  'credentialInUrlError',
  'foreignTokenError',
  'getOAuth2Error',
  'insufficientScopeError',
  'insufficientUserAuthenticationError',
  'invalidTokenError',
  'tokenExpiredError',
];
const ERRORS_TYPES = [
  'AuthenticationRequirement',
  'ChallengeOptions',
  'OAuth2ErrorCode',
  'OAuth2ErrorInit',
  'OAuth2ErrorStatus',
];

/** `@trpc-oauth2/core/dpop`: sender-constrained tokens (RFC 9449). */
const DPOP_VALUES = [
  'DPOP_ALGORITHMS',
  'DPOP_NONCE_HEADER',
  'accessTokenHash',
  'dpopChallenge',
  'dpopCredentialInUrlError',
  'dpopInsufficientScopeError',
  'dpopInsufficientUserAuthenticationError',
  'dpopInvalidTokenError',
  'dpopNonces',
  'dpopNotAuthenticatedError',
  'dpopProofVerifier',
  'invalidDPoPProofError',
  'memoryReplayStore',
  'useDPoPNonceError',
];
const DPOP_TYPES = [
  'DPoPAlgorithm',
  'DPoPChallengeOptions',
  'DPoPCheck',
  'DPoPNonces',
  'DPoPNoncesOptions',
  'DPoPProof',
  'DPoPProofOptions',
  'DPoPProofVerifier',
  'DPoPRefusal',
  'DPoPReplayStore',
  'DPoPRequest',
  'MemoryReplayStoreOptions',
  'ReaderDPoPOptions',
];

/** `@trpc-oauth2/core/token-endpoint`: the authorization server's side (token and revocation endpoints). */
const TOKEN_ENDPOINT_VALUES = [
  'TOKEN_RESPONSE_HEADERS',
  'authenticateTokenClient',
  'authorizationCodeGrantForm',
  'authorizationServerMetadata',
  'clientCredentialsGrantForm',
  'defineGrantForm',
  'isCodeVerifier',
  'oauth2ErrorData',
  'passwordGrantForm',
  'refreshTokenGrantForm',
  'revocationEndpoint',
  's256CodeChallenge',
  'tokenEndpoint',
  'tokenError',
  'tokenErrorResponse',
  'tokenResponseSchema',
  'verifyCodeVerifier',
];
const TOKEN_ENDPOINT_TYPES = [
  'AuthenticateClient',
  'AuthorizationCodeRequestForm',
  'AuthorizationServerMetadata',
  'AuthorizationServerMetadataOptions',
  'BuiltInGrants',
  'ClientAuthMethod',
  'ClientCredentialsRequestForm',
  'DefinedGrantForm',
  'DefinedGrantFormInput',
  'GrantField',
  'GrantForm',
  'GrantFormFields',
  'GrantHandler',
  'GrantHandlerOptions',
  'GrantRequestFormBase',
  'OAuth2ErrorData',
  'RefreshTokenRequestForm',
  'RevocationEndpointOptions',
  'RevocationEndpointProcedure',
  'RevocationRequestForm',
  'RevocationRequestFormInput',
  'TokenEndpointBuilder',
  'TokenEndpointDPoPOptions',
  'TokenEndpointOptions',
  'TokenEndpointProcedure',
  'TokenErrorCode',
  'TokenErrorOptions',
  'TokenErrorResponse',
  'TokenRequestCall',
  'TokenResponse',
];

/**
 * `@trpc-oauth2/core/protocol`: what `@trpc-oauth2/openapi` reads from a secured router, and the
 * JWS signature step `@trpc-oauth2/jwt` verifies with.
 */
const PROTOCOL_VALUES = [
  'FORM_FIELDS',
  'REQUEST_URL',
  'SECURITY',
  'TOKEN_ENDPOINT',
  'canonicalResource',
  'checkedMaxBodySize',
  'compactJws',
  'concealFaultInPlace',
  'deepFreeze',
  'encodeBasicCredentials',
  'expandDeclaration',
  'getProcedureSecurity',
  'getTokenEndpoint',
  'headersFromContext',
  'isBase64urlSegment',
  'isScopeToken',
  'issuerIdentifier',
  'jsonSegment',
  'mountedTargetOf',
  'parseScope',
  'queryFieldsRefusal',
  'readHeader',
  'responseHeaderRecord',
  'secureUrl',
  'signature',
  'tokenRefusalInPlace',
];
const PROTOCOL_TYPES = [
  'CompactJws',
  'DPoPDeclaration',
  'DeclaredGrant',
  'FormField',
  'HeadersLike',
  'KeyMaterial',
  'OAuth2SecurityScheme',
  'OAuthFlows',
  'ProcedureSecurity',
  'ScopeMap',
  'SecurityDeclaration',
  'SignatureStep',
  'TokenEndpointDeclaration',
];

const entries = [
  { entry: '@trpc-oauth2/core', file: '../src/index.ts', module: publicEntry, values: PUBLIC_VALUES, types: PUBLIC_TYPES },
  { entry: '@trpc-oauth2/core/errors', file: '../src/errors-entry.ts', module: errorsEntry, values: ERRORS_VALUES, types: ERRORS_TYPES },
  { entry: '@trpc-oauth2/core/dpop', file: '../src/dpop/index.ts', module: dpopEntry, values: DPOP_VALUES, types: DPOP_TYPES },
  { entry: '@trpc-oauth2/core/token-endpoint', file: '../src/token-endpoint/index.ts', module: tokenEndpointEntry, values: TOKEN_ENDPOINT_VALUES, types: TOKEN_ENDPOINT_TYPES },
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

  it.each(exported)('$name has a summary, and an @example if it is called', (symbol) => {
    expect(missingDocs(symbol)).toEqual([]);
  });
});

describe('the TSDoc check', () => {
  // Built while collecting, as the entries above are: a TypeScript program takes seconds here.
  const sample = exportedDocs(new URL('./support/exported-docs-sample.ts', import.meta.url).pathname);

  it('names the function, the function constant and the class without an example, and the export without a summary', () => {
    const failing = Object.fromEntries(sample.map((symbol) => [symbol.name, missingDocs(symbol)]).filter(([, missing]) => missing!.length > 0));
    expect(failing).toEqual({ undocumentedCall: ['@example'], arrowCall: ['@example'], UndocumentedClass: ['@example'], NO_SUMMARY: ['summary'] });
  });
});

describe('the RFC grammar', () => {
  it('stays private: no entry exports its constants', () => {
    const names = Object.keys({ ...publicEntry, ...errorsEntry, ...dpopEntry, ...tokenEndpointEntry, ...protocol });
    for (const name of ['BEARER_SCHEME', 'SCOPE_TOKEN', 'SCHEME_SEPARATOR', 'SCOPE_SEPARATOR', 'PASSWORD_GRANT_TYPE', 'NOT_AUTHENTICATED']) {
      expect(names).not.toContain(name);
    }
  });
});
