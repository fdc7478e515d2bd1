/**
 * The verifiers' refusals: one fixed description per cause (never the token or a claim), and the
 * 503 error with a stable code when the authorization server cannot answer.
 * @module
 */
import { TRPCError } from '@trpc/server';

/**
 * The fixed `error_description` of every refusal, one per cause. A description never echoes the
 * token or a claim's value: an attacker controls both.
 */
export const TOKEN_REFUSALS = {
  /**
   * Not a JWT, not a JWS, an unreadable header or payload, a `kid` that is not a string of at most
   * 256 characters, a claim of the wrong type.
   */
  invalid: 'The access token is invalid',
  /** `exp` is past (beyond `clockTolerance`). */
  expired: 'The access token expired',
  /** `nbf` is in the future (or `iat`, when `maxTokenAge` is set), beyond `clockTolerance`. */
  notYetValid: 'The access token is not valid yet',
  /** `iat` is older than `maxTokenAge`. */
  tooOld: 'The access token is too old',
  /** The signature does not verify with the key. */
  signature: 'The access token signature is invalid',
  /** The `alg` is not one of the pinned `algorithms`. */
  algorithm: 'The access token algorithm is not allowed',
  /** No key of the key set has the token's `kid` (after a refetch). */
  unknownKey: 'The access token signing key is unknown',
  /** `iss` is not the configured issuer. */
  issuer: 'The access token was issued by another issuer',
  /** `aud` does not name this resource. */
  audience: 'The access token is meant for another audience',
  /** The `typ` header is not `at+jwt` (RFC 9068), when required; or introspection says another `token_type`. */
  type: 'The token is not an access token',
  /** A required claim (`sub`, `exp`, `iat` …) is missing. */
  missingClaim: 'The access token lacks a required claim',
  /** `scope` / `scp` is not a space-delimited string or an array of scope tokens. */
  scope: 'The access token scope is malformed',
  /** The payload does not satisfy the `claims` schema. */
  claims: 'The access token claims are invalid',
  /** `cnf` is not an object, or its `jkt` is not a JWK SHA-256 thumbprint (RFC 7800, RFC 9449 §6). */
  confirmation: 'The access token confirmation is malformed',
  /** The introspection endpoint answered `active: false` (expired, revoked, unknown). */
  inactive: 'The access token is not active',
  /** The introspection endpoint refused to introspect the token (HTTP 400: a token it does not keep). */
  rejected: 'The access token is not one the authorization server accepts',
  /**
   * The introspection endpoint would not read the token (HTTP 413: its form, the token and its
   * hint, is over the endpoint's body limit).
   */
  tooLarge: 'The access token is too large for the authorization server',
} as const;

/**
 * Why a verifier could not decide: the authorization server (its key set or its introspection
 * endpoint) failed, timed out or answered nonsense. It is the `cause` of the 503 `TRPCError` that
 * {@link verifierUnavailableError} builds, with a stable `code`.
 *
 * @example
 * ```ts
 * if (error.cause instanceof VerifierUnavailableError) metrics.increment(error.cause.code);
 * ```
 */
export class VerifierUnavailableError extends Error {
  override readonly name = 'VerifierUnavailableError';
  /** Stable: the key set (`ERR_JWKS_UNAVAILABLE`) or the introspection endpoint (`ERR_INTROSPECTION_UNAVAILABLE`). */
  readonly code: 'ERR_JWKS_UNAVAILABLE' | 'ERR_INTROSPECTION_UNAVAILABLE';

  constructor(code: VerifierUnavailableError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * The error a verifier throws when its authorization server cannot answer: tRPC's
 * `SERVICE_UNAVAILABLE` (HTTP 503), with a {@link VerifierUnavailableError} as its cause. The
 * client's token may be fine, so it is never a 401; the message names no URL and no token.
 *
 * @example
 * ```ts
 * throw verifierUnavailableError(new VerifierUnavailableError('ERR_JWKS_UNAVAILABLE', 'The key set timed out'));
 * ```
 */
export function verifierUnavailableError(cause: VerifierUnavailableError): TRPCError {
  return new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'The token verifier is unavailable', cause });
}
