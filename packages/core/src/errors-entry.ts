/**
 * `@trpc-oauth2/core/errors`: one factory per RFC 6750 (and RFC 9470) refusal, each building the
 * `TRPCError` whose challenge the response hooks put on the answer. Readers take them through
 * their `*Error` options; override one to change what a refusal says, never how it is sent.
 * @module
 */
export {
  OAuth2Error,
  getOAuth2Error,
  bearerNotAuthenticatedError,
  invalidTokenError,
  foreignTokenError,
  insufficientScopeError,
  insufficientUserAuthenticationError,
  credentialInUrlError,
  tokenExpiredError,
  type AuthenticationRequirement,
  type ChallengeOptions,
  type OAuth2ErrorCode,
  type OAuth2ErrorInit,
  type OAuth2ErrorStatus,
} from './errors.js';
