/**
 * `jwtVerifier`: verifies a JWT access token with jose against a key, a secret or a JWKS URL,
 * pinning the algorithms, and maps each jose failure to a fixed refusal.
 * @module
 */
import { invalidTokenError } from '@trpc-oauth2/core';
import {
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type CryptoKey,
  type JWK,
  type JWSHeaderParameters,
  type JWTPayload,
  type JWTVerifyGetKey,
  type KeyObject,
} from 'jose';
import type { z } from 'zod/v4';
import { raceAbort } from './abort.js';
import { endpointUrl } from './endpoint-url.js';
import { TOKEN_REFUSALS, VerifierUnavailableError, verifierUnavailableError } from './errors.js';
import type { TokenVerifier } from './principal.js';
import { claimsOf, scopesOfClaims } from './scopes.js';

// RFC 7518 §3.1 and RFC 8037: the signature algorithms a verifier may pin. `none` is not one of them.
const HMAC_ALGORITHMS = { HS256: 32, HS384: 48, HS512: 64 } as const; // → the smallest key, in bytes (RFC 7518 §3.2)
const ASYMMETRIC_ALGORITHMS = new Set([
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519',
]);
// RFC 9068 §2.1: JWT access tokens carry `typ: at+jwt` (jose also accepts `application/at+jwt`).
const ACCESS_TOKEN_TYPE = 'at+jwt';

/** A JWS algorithm signed with a shared secret (RFC 7518 §3.2). */
export type HmacAlgorithm = keyof typeof HMAC_ALGORITHMS;

/**
 * A JWS algorithm signed with a private key and verified with its public key (RFC 7518, RFC 8037).
 */
export type AsymmetricAlgorithm =
  | 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA' | 'Ed25519';

/** What {@link jwtVerifier} returns for a valid JWT access token. */
export interface JwtPrincipal<TClaims = JWTPayload> {
  /** The `sub` claim: the resource owner, or the client itself for client credentials. */
  readonly subject: string;
  /** The scopes the token grants: `scope` split on spaces, or `scp`. */
  readonly scopes: readonly string[];
  /** The `exp` claim, seconds since the epoch. */
  readonly expiresAt: number;
  /** The payload, as the `claims` schema parsed it (the JWT payload when there is no schema). */
  readonly claims: TClaims;
}

/** The options every {@link jwtVerifier} takes, whatever its key. */
export interface JwtVerifierCommonOptions<TClaims = JWTPayload> {
  /** The `iss` the token must carry (one of, for an array). Required: a token of another issuer is refused. */
  issuer: string | readonly [string, ...string[]];
  /**
   * The `aud` the token must name (one of, for an array). Required, with no way to opt out: a token
   * minted for another API must never be accepted here (RFC 9068 §4).
   */
  audience: string | readonly [string, ...string[]];
  /** Seconds of clock skew tolerated on `exp`, `nbf` and `iat`. Default `0`. */
  clockTolerance?: number;
  /** Seconds after `iat` past which the token is refused (`iat` is then required, and refused in the future). Default: no limit. */
  maxTokenAge?: number;
  /** Require the RFC 9068 header `typ: at+jwt` (an ID token is then never taken for an access token). Default `false`. */
  requireAccessTokenType?: boolean;
  /**
   * A zod 4 schema the payload must satisfy; its output is `principal.claims` (so an `z.object`
   * keeps only the keys it names: use `z.looseObject` to keep the others). Default: the payload.
   */
  claims?: z.ZodType<TClaims>;
}

/** The key as a public key: a `CryptoKey`, a Node `KeyObject` or a public JWK. */
export interface JwtPublicKeyOptions {
  key: CryptoKey | KeyObject | JWK;
  /** The algorithms accepted, pinned (never read from the token alone). */
  algorithms: readonly [AsymmetricAlgorithm, ...AsymmetricAlgorithm[]];
  secret?: never;
  jwksUrl?: never;
}

/**
 * The key as a shared secret, for HS256/384/512 only; at least as many bytes as the hash
 * (32, 48, 64), or the verifier refuses to be built.
 */
export interface JwtSecretOptions {
  /** A string is taken as its UTF-8 bytes. */
  secret: Uint8Array | string;
  /** The algorithms accepted, pinned: HMAC only, so a public key can never be used as a secret. */
  algorithms: readonly [HmacAlgorithm, ...HmacAlgorithm[]];
  key?: never;
  jwksUrl?: never;
}

/**
 * The keys as the authorization server's JSON Web Key Set, fetched and cached (jose's
 * `createRemoteJWKSet`). A token whose `kid` is unknown makes it refetch the set, at most once per
 * `cooldownDuration`; a fetch that fails or times out answers 503 (see {@link verifierUnavailableError}).
 */
export interface JwtJwksOptions {
  /** The `jwks_uri`: `https:`, or `http:` on a loopback host only. */
  jwksUrl: string | URL;
  /** The algorithms accepted, pinned (never read from the token alone). */
  algorithms: readonly [AsymmetricAlgorithm, ...AsymmetricAlgorithm[]];
  /** Milliseconds after a fetch before an unknown `kid` may trigger another. Default `30_000`. */
  cooldownDuration?: number;
  /** Milliseconds a fetch of the key set may take before the verification answers 503. Default `5_000`. */
  timeoutDuration?: number;
  /** Milliseconds the fetched key set is used before it is fetched again. Default `600_000`. */
  cacheMaxAge?: number;
  key?: never;
  secret?: never;
}

/** The options of {@link jwtVerifier}: the common ones and exactly one key source. */
export type JwtVerifierOptions<TClaims = JWTPayload> = JwtVerifierCommonOptions<TClaims> &
  (JwtPublicKeyOptions | JwtSecretOptions | JwtJwksOptions);

/**
 * A verifier of JWT access tokens (RFC 9068, RFC 7519): signature with the pinned algorithms,
 * `iss`, `aud`, `exp` (required), `nbf`, `iat`, optionally `typ: at+jwt`, then `sub` (required),
 * the scopes and the `claims` schema. Every refusal is core's `invalidTokenError` (401) with one
 * of the fixed {@link TOKEN_REFUSALS}; a key set that cannot be fetched is a 503
 * ({@link verifierUnavailableError}). Options it cannot honour throw a `TypeError` when it is built.
 *
 * @example
 * ```ts
 * const verify = jwtVerifier({
 *   jwksUrl: 'https://issuer.example/jwks',
 *   algorithms: ['RS256'],
 *   issuer: 'https://issuer.example',
 *   audience: 'https://api.example',
 *   claims: z.looseObject({ tenant: z.string() }),
 * });
 * const principal = await verify(token); // principal.claims.tenant: string
 * ```
 */
export function jwtVerifier<TClaims = JWTPayload>(options: JwtVerifierOptions<TClaims>): TokenVerifier<JwtPrincipal<TClaims>> {
  const key = keyOf(options);
  assertNonEmpty(options.issuer, 'issuer');
  assertNonEmpty(options.audience, 'audience');
  const verifyOptions = {
    algorithms: [...options.algorithms],
    issuer: typeof options.issuer === 'string' ? options.issuer : [...options.issuer],
    audience: typeof options.audience === 'string' ? options.audience : [...options.audience],
    clockTolerance: options.clockTolerance ?? 0,
    ...(options.maxTokenAge === undefined ? {} : { maxTokenAge: options.maxTokenAge }),
    ...(options.requireAccessTokenType ? { typ: ACCESS_TOKEN_TYPE } : {}),
    requiredClaims: ['exp', 'sub'],
  };
  const schema = options.claims;

  async function verify(token: string): Promise<JwtPrincipal<TClaims>> {
    let payload: JWTPayload;
    try {
      // jose checks the pinned algorithm before it asks for a key.
      ({ payload } = await jwtVerify(token, key as Parameters<typeof jwtVerify>[1], verifyOptions));
    } catch (error) {
      if (error instanceof VerifierUnavailableError) throw verifierUnavailableError(error);
      throw invalidTokenError(joseRefusalDescription(error));
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') throw invalidTokenError(TOKEN_REFUSALS.invalid);
    const scopes = scopesOfClaims(payload);
    if (!scopes) throw invalidTokenError(TOKEN_REFUSALS.scope);
    const claims = await claimsOf(payload, schema);
    return { subject: payload.sub, scopes, expiresAt: payload.exp!, claims };
  }

  return (token, verifyOptions) => raceAbort(verify(token), verifyOptions?.signal);
}

/** The refusal of a jose error: a fixed description per cause, never the token or a claim value. */
function joseRefusalDescription(error: unknown): string {
  if (!(error instanceof errors.JOSEError)) return TOKEN_REFUSALS.invalid;
  switch (error.code) {
    case 'ERR_JWT_EXPIRED':
      return (error as errors.JWTExpired).claim === 'iat' ? TOKEN_REFUSALS.tooOld : TOKEN_REFUSALS.expired;
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const { claim, reason } = error as errors.JWTClaimValidationFailed;
      if (reason === 'missing') return TOKEN_REFUSALS.missingClaim;
      if (claim === 'nbf' || (claim === 'iat' && reason === 'check_failed')) return TOKEN_REFUSALS.notYetValid;
      if (claim === 'iss') return TOKEN_REFUSALS.issuer;
      if (claim === 'aud') return TOKEN_REFUSALS.audience;
      if (claim === 'typ') return TOKEN_REFUSALS.type;
      return TOKEN_REFUSALS.invalid;
    }
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return TOKEN_REFUSALS.algorithm;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return TOKEN_REFUSALS.signature;
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return TOKEN_REFUSALS.unknownKey;
    default:
      return TOKEN_REFUSALS.invalid;
  }
}

type VerificationKey = CryptoKey | KeyObject | JWK | Uint8Array | JWTVerifyGetKey;

/** The key jose verifies with, after the checks that make algorithm confusion impossible. */
function keyOf(options: JwtPublicKeyOptions | JwtSecretOptions | JwtJwksOptions): VerificationKey {
  const sources = [options.key, options.secret, options.jwksUrl].filter((source) => source !== undefined);
  if (sources.length !== 1) throw new TypeError('jwtVerifier takes exactly one of key, secret and jwksUrl');
  const algorithms: readonly string[] = Array.isArray(options.algorithms) ? options.algorithms : [];
  if (algorithms.length === 0) throw new TypeError('jwtVerifier needs the algorithms it accepts, pinned');

  if (options.secret !== undefined) {
    const secret = typeof options.secret === 'string' ? new TextEncoder().encode(options.secret) : options.secret;
    for (const algorithm of algorithms) {
      const minimum = HMAC_ALGORITHMS[algorithm as HmacAlgorithm];
      if (minimum === undefined) throw new TypeError(`a secret verifies HS256, HS384 or HS512 only, not ${algorithm}`);
      if (secret.byteLength < minimum) throw new TypeError(`a secret for ${algorithm} needs at least ${minimum} bytes`);
    }
    return secret;
  }

  for (const algorithm of algorithms) {
    if (!ASYMMETRIC_ALGORITHMS.has(algorithm)) {
      throw new TypeError(`a public key or key set verifies asymmetric algorithms only, not ${algorithm}`);
    }
  }

  if (options.key !== undefined) {
    const key = options.key;
    if (key instanceof Uint8Array || typeof key !== 'object' || key === null) {
      throw new TypeError('key must be a CryptoKey, a KeyObject or a JWK (a shared secret goes in secret)');
    }
    const type = 'kty' in key ? (key.kty === 'oct' ? 'secret' : 'd' in key ? 'private' : 'public') : (key as KeyObject).type;
    if (type === 'secret') throw new TypeError('key must be a public key (a shared secret goes in secret)');
    if (type === 'private') throw new TypeError('key must be the public key, not the private key');
    return key;
  }

  const url = endpointUrl(options.jwksUrl!, 'jwksUrl');
  const keySet = createRemoteJWKSet(url, {
    cooldownDuration: options.cooldownDuration ?? 30_000,
    timeoutDuration: options.timeoutDuration ?? 5_000,
    cacheMaxAge: options.cacheMaxAge ?? 600_000,
  });
  return async (header: JWSHeaderParameters, token) => {
    try {
      return await keySet(header, token);
    } catch (error) {
      // No key for this `kid`/`alg` is the token's problem; anything else is the key set's.
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      if (error instanceof errors.JOSENotSupported) throw error;
      const timedOut = error instanceof errors.JWKSTimeout;
      throw new VerifierUnavailableError(
        'ERR_JWKS_UNAVAILABLE',
        timedOut ? 'The key set did not answer in time' : 'The key set could not be fetched',
        { cause: error },
      );
    }
  };
}

function assertNonEmpty(value: string | readonly string[], option: string): void {
  const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  if (values.length === 0 || values.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw new TypeError(`jwtVerifier needs ${option}: a non-empty string or array of strings`);
  }
}
