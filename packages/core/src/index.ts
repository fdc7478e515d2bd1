/**
 * `@trpc-oauth2/core`: what a tRPC application needs to secure its procedures. Readers for the
 * `Authorization` header, SecurityScopes, the password request form, client credentials, errors
 * with stable codes and the adapter hooks that put each refusal's challenge on the response.
 * The error factories are on `@trpc-oauth2/core/errors`, DPoP (RFC 9449) on `@trpc-oauth2/core/dpop`,
 * the token and revocation endpoints on `@trpc-oauth2/core/token-endpoint`; what other HTTP layers
 * read from a chain is on `@trpc-oauth2/core/protocol`.
 * @module
 */
export { oauth2, type OAuth2Options } from './readers/oauth2.js';
export {
  oauth2Bearer,
  oauth2PasswordBearer,
  oauth2AuthorizationCodeBearer,
  type OAuth2BearerOptions,
  type OAuth2PasswordBearerOptions,
  type OAuth2AuthorizationCodeBearerOptions,
} from './readers/oauth2-bearer.js';
export type { SecurityReader, SecurityReaderOptions, ReaderWithScopes, ReaderContext, StreamContext, NeededContext } from './readers/types.js';
export { anyOf, type AnyOfReader } from './readers/any-of.js';
export type { Principal, TokenConfirmation, TokenVerifier, VerifyOptions, VerifyRequest } from './readers/principal.js';
export { assertGrantedScopes, type ScopeCheckReader, type SecurityScopes, type GrantedScopes, type ScopesMiddleware } from './security-scopes.js';
export {
  passwordRequestForm,
  passwordRequestFormStrict,
  type PasswordRequestForm,
  type PasswordRequestFormInput,
  type PasswordRequestFormStrict,
  type PasswordRequestFormStrictInput,
} from './password-request-form.js';
export { type ScopeImplications, type ImpliedScopes } from './scope-hierarchy.js';
export { assertAuthentication, requireAuthentication, type AuthenticatedPrincipal, type StepUpOptions } from './step-up.js';
export { readClientCredentials, type ClientCredentials } from './client-credentials.js';
export { OAuth2Error, getOAuth2Error } from './errors.js';
export { oauth2ResponseMeta, oauth2OnError, type ResponseMetaResult } from './response.js';
