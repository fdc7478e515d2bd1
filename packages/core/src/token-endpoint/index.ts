/**
 * `@trpc-oauth2/core/token-endpoint`: the authorization server's side. The token endpoint with
 * its grant forms, client authentication and PKCE, the revocation endpoint, and the RFC 6749 §5.2
 * refusals both answer with. An API that only checks tokens needs none of it.
 * @module
 */
export {
  tokenEndpoint,
  tokenResponseSchema,
  type TokenResponse,
  type TokenEndpointOptions,
  type TokenEndpointDPoPOptions,
  type TokenEndpointBuilder,
  type TokenEndpointProcedure,
  type BuiltInGrants,
  type GrantHandler,
  type GrantHandlerOptions,
  type TokenRequestCall,
} from './token-endpoint.js';
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
} from './grant-forms.js';
export { authenticateTokenClient, type AuthenticateClient } from './client-authentication.js';
export {
  revocationEndpoint,
  type RevocationEndpointOptions,
  type RevocationEndpointProcedure,
  type RevocationRequestForm,
  type RevocationRequestFormInput,
} from './revocation-endpoint.js';
export {
  tokenError,
  tokenErrorResponse,
  oauth2ErrorData,
  TOKEN_RESPONSE_HEADERS,
  type TokenErrorCode,
  type TokenErrorOptions,
  type TokenErrorResponse,
  type OAuth2ErrorData,
} from './token-errors.js';
export { verifyCodeVerifier, isCodeVerifier, s256CodeChallenge } from './pkce.js';
export {
  authorizationServerMetadata,
  type AuthorizationServerMetadata,
  type AuthorizationServerMetadataOptions,
  type ClientAuthMethod,
} from './authorization-server-metadata.js';
