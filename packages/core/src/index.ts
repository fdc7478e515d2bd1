/**
 * `@trpc-oauth2/core`: what a tRPC application needs to secure its procedures. Readers for the
 * `Authorization` header, SecurityScopes, the password request form, client credentials, errors
 * with stable codes and the adapter hooks that put each refusal's challenge on the response.
 * The token and revocation endpoints are on `@trpc-oauth2/core/token-endpoint`; what other HTTP
 * layers read from a chain is on `@trpc-oauth2/core/protocol`.
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
export type { SecurityReader, SecurityReaderOptions, ReaderWithScopes, ReaderContext } from './readers/types.js';
export { anyOf, type AnyOfReader } from './readers/any-of.js';
export type { Principal, TokenConfirmation, TokenVerifier, VerifyOptions, VerifyRequest } from './readers/principal.js';
export { assertGrantedScopes, type SecurityScopes, type GrantedScopes, type ScopesMiddleware } from './security-scopes.js';
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
export {
  OAuth2Error,
  getOAuth2Error,
  bearerNotAuthenticatedError,
  invalidTokenError,
  insufficientScopeError,
  insufficientUserAuthenticationError,
  type AuthenticationRequirement,
  type ChallengeOptions,
  credentialInUrlError,
  tokenExpiredError,
  type OAuth2ErrorCode,
  type OAuth2ErrorInit,
  type OAuth2ErrorStatus,
} from './errors.js';
export { oauth2ResponseMeta, oauth2OnError, type ResponseMetaResult } from './response.js';
export type { OAuthFlows, ScopeMap } from './security-declaration.js';
export { DPOP_ALGORITHMS, type DPoPAlgorithm } from './dpop/algorithms.js';
export {
  dpopProofVerifier,
  accessTokenHash,
  type DPoPProofVerifier,
  type DPoPProofOptions,
  type DPoPRequest,
  type DPoPProof,
  type DPoPCheck,
  type DPoPRefusal,
} from './dpop/proof.js';
export { memoryReplayStore, type DPoPReplayStore, type MemoryReplayStoreOptions } from './dpop/replay-store.js';
export { dpopNonces, type DPoPNonces, type DPoPNoncesOptions } from './dpop/nonces.js';
export { dpopChallenge, invalidDPoPProofError, useDPoPNonceError, DPOP_NONCE_HEADER, type DPoPChallengeOptions } from './dpop/dpop-errors.js';
export { dpopInvalidTokenError, dpopNotAuthenticatedError, type ReaderDPoPOptions } from './dpop/reader-dpop.js';
