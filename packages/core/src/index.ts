/**
 * OAuth2 security for tRPC v11: readers for the `Authorization` header, accumulated
 * SecurityScopes, the password request form, client credentials, the token and revocation
 * endpoints (grants, client authentication, PKCE), errors with stable codes, and the adapter hooks that put each refusal's challenge on the HTTP response.
 *
 * Data flows request → headers → reader → ctx → scopes → resolver. What `@trpc-oauth2/openapi`
 * reads from a chain is on `@trpc-oauth2/core/protocol`.
 * @module
 */
export { oauth2, type OAuth2Options } from './readers/oauth2.js';
export {
  oauth2PasswordBearer,
  oauth2AuthorizationCodeBearer,
  type OAuth2PasswordBearerOptions,
  type OAuth2AuthorizationCodeBearerOptions,
} from './readers/oauth2-bearer.js';
export type { SecurityReader, SecurityReaderOptions, ReaderWithScopes, ReaderContext } from './readers/types.js';
export { anyOf, type AnyOfReader } from './readers/any-of.js';
export type { Principal, TokenVerifier, VerifyOptions, VerifyRequest } from './readers/principal.js';
export { assertGrantedScopes, type SecurityScopes, type GrantedScopes, type ScopesMiddleware } from './security-scopes.js';
export {
  passwordRequestForm,
  passwordRequestFormStrict,
  type PasswordRequestForm,
  type PasswordRequestFormInput,
  type PasswordRequestFormStrict,
  type PasswordRequestFormStrictInput,
} from './password-request-form.js';
export { readClientCredentials, type ClientCredentials } from './client-credentials.js';
export {
  OAuth2Error,
  getOAuth2Error,
  bearerNotAuthenticatedError,
  invalidTokenError,
  insufficientScopeError,
  credentialInUrlError,
  tokenExpiredError,
  type OAuth2ErrorCode,
  type OAuth2ErrorInit,
  type OAuth2ErrorStatus,
} from './errors.js';
export { oauth2ResponseMeta, oauth2OnError } from './response.js';
export {
  tokenEndpoint,
  tokenResponseSchema,
  type TokenResponse,
  type TokenEndpointOptions,
  type TokenEndpointBuilder,
  type TokenEndpointProcedure,
  type BuiltInGrants,
  type GrantHandler,
  type GrantHandlerOptions,
  type TokenRequestCall,
} from './token-endpoint/token-endpoint.js';
export {
  defineGrantForm,
  passwordGrantForm,
  refreshTokenGrantForm,
  clientCredentialsGrantForm,
  authorizationCodeGrantForm,
  type GrantForm,
  type GrantField,
  type GrantFormFields,
  type GrantRequestFormBase,
  type DefinedGrantForm,
  type DefinedGrantFormInput,
  type RefreshTokenRequestForm,
  type ClientCredentialsRequestForm,
  type AuthorizationCodeRequestForm,
} from './token-endpoint/grant-forms.js';
export { authenticateTokenClient, type AuthenticateClient } from './token-endpoint/client-authentication.js';
export {
  revocationEndpoint,
  type RevocationEndpointOptions,
  type RevocationEndpointProcedure,
  type RevocationRequestForm,
  type RevocationRequestFormInput,
} from './token-endpoint/revocation-endpoint.js';
export {
  tokenError,
  tokenErrorResponse,
  oauth2ErrorData,
  TOKEN_RESPONSE_HEADERS,
  type TokenErrorCode,
  type TokenErrorOptions,
  type TokenErrorResponse,
  type OAuth2ErrorData,
} from './token-endpoint/token-errors.js';
export { verifyCodeVerifier, isCodeVerifier, s256CodeChallenge } from './token-endpoint/pkce.js';
export type { OAuthFlows, ScopeMap } from './security-declaration.js';
