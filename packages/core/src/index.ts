/**
 * OAuth2 security for tRPC v11: readers for the `Authorization` header, accumulated
 * SecurityScopes, the password request form, and the OpenAPI metadata of each scheme.
 *
 * Data flows request → headers → reader → ctx → scopes → resolver.
 * @module
 */
export * from './grammar.js';
export type { HeadersLike } from './headers-like.js';
export { readHeader } from './read-header.js';
export { headersFromContext } from './headers-from-context.js';
export { OAuth2Error, type OAuth2ErrorCode, type OAuth2ErrorInit, type OAuth2ErrorStatus } from './oauth2-error.js';
export { getOAuth2Error } from './get-oauth2-error.js';
export { oauth2ResponseMeta, type ResponseMetaResult } from './oauth2-response-meta.js';
export { oauth2OnError } from './oauth2-on-error.js';
export type { OAuthFlows, OAuth2SecurityScheme, ScopeMap, FlowScopes } from './oauth-flows.js';
export { SECURITY, type SecurityDeclaration } from './security-declaration.js';
export type { MiddlewareOptions, MiddlewareResult, ScopesOf } from './middleware-types.js';
export type { SecurityReader, SecurityReaderOptions, ReadValue, ReaderWithScopes } from './security-reader.js';
export { oauth2, type OAuth2Options } from './oauth2.js';
export { bearerToken, bearerNotAuthenticatedError } from './bearer-token.js';
export { oauth2PasswordBearer, type OAuth2PasswordBearerOptions } from './oauth2-password-bearer.js';
export {
  oauth2AuthorizationCodeBearer,
  type OAuth2AuthorizationCodeBearerOptions,
} from './oauth2-authorization-code-bearer.js';
export type { SecurityScopes } from './security-scopes.js';
export type { ScopesMiddleware } from './scopes-middleware.js';
export type { GrantedScopes } from './granted-scopes.js';
export { assertGrantedScopes } from './assert-granted-scopes.js';
export { invalidTokenError } from './invalid-token-error.js';
export { insufficientScopeError } from './insufficient-scope-error.js';
export { getProcedureSecurity, type ProcedureSecurity } from './procedure-security.js';
export { FORM_FIELDS, formFields, type FormField } from './form-fields.js';
export {
  passwordRequestForm,
  type PasswordRequestForm,
  type PasswordRequestFormInput,
} from './password-request-form.js';
export {
  passwordRequestFormStrict,
  type PasswordRequestFormStrict,
  type PasswordRequestFormStrictInput,
} from './password-request-form-strict.js';
export { readClientCredentials, type ClientCredentials } from './client-credentials.js';
