/**
 * OAuth2 security for tRPC v11: readers for the `Authorization` header, accumulated
 * SecurityScopes, the password request form, client credentials, errors with stable codes, and
 * the adapter hooks that put each refusal's challenge on the HTTP response.
 *
 * Data flows request → headers → reader → ctx → scopes → resolver. What `@trpc-oauth2/openapi`
 * reads from a chain is on `@trpc-oauth2/core/protocol`.
 * @module
 */
export { oauth2, type OAuth2Options } from './oauth2.js';
export {
  oauth2PasswordBearer,
  oauth2AuthorizationCodeBearer,
  type OAuth2PasswordBearerOptions,
  type OAuth2AuthorizationCodeBearerOptions,
} from './oauth2-bearer.js';
export type { SecurityReader, SecurityReaderOptions, ReaderWithScopes, ReaderContext } from './security-reader.js';
export type { Principal, TokenVerifier, VerifyOptions } from './principal.js';
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
  type OAuth2ErrorCode,
  type OAuth2ErrorInit,
  type OAuth2ErrorStatus,
} from './errors.js';
export { oauth2ResponseMeta, oauth2OnError } from './response.js';
export type { OAuthFlows, ScopeMap } from './openapi.js';
