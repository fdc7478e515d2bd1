/**
 * Token verifiers for `@trpc-oauth2/core` readers: JWT access tokens checked against a key, a
 * shared secret or the authorization server's key set (RFC 9068), opaque tokens asked of its
 * introspection endpoint (RFC 7662), and a bounded cache of verified tokens.
 *
 * Every refusal is core's `invalidTokenError` (401) with a fixed description; an authorization
 * server that cannot answer is a 503.
 * @module
 */
export type { AudienceBoundVerifier, Principal, TokenVerifier, VerifyOptions } from './principal.js';
export { TOKEN_REFUSALS, VerifierUnavailableError, verifierUnavailableError } from './errors.js';
export {
  jwtVerifier,
  type AsymmetricAlgorithm,
  type HmacAlgorithm,
  type JwtJwksOptions,
  type JwtPrincipal,
  type JwtPublicKeyOptions,
  type JwtSecretOptions,
  type JwtVerifierCommonOptions,
  type JwtVerifierOptions,
} from './jwt-verifier.js';
export {
  introspectionVerifier,
  type IntrospectionPrincipal,
  type IntrospectionResponse,
  type IntrospectionVerifierOptions,
} from './introspection-verifier.js';
export { cacheVerifier, type CacheVerifierOptions } from './cache-verifier.js';
