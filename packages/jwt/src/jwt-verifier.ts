/**
 * `jwtVerifier`: verifies a JWT access token against a key, a secret or a JWKS URL, pinning
 * the algorithms, and maps each failure to a fixed refusal.
 * @module
 */
import { foreignTokenError, invalidTokenError } from '@trpc-oauth2/core/errors';
import { jsonSegment, secureUrl, signature as runtimeSignature, type CompactJws, type KeyMaterial, type SignatureStep } from '@trpc-oauth2/core/protocol';
import { TRPCError } from '@trpc/server';
import type { CryptoKey, JWK, JWTPayload, KeyObject } from 'jose';
import type { z } from 'zod/v4';
import { raceAbort } from './abort.js';
import { checkClaims, type ClaimRules } from './claims-check.js';
import { durationOption } from './durations.js';
import { TOKEN_REFUSALS, VerifierUnavailableError, verifierUnavailableError } from './errors.js';
import { MAX_CANDIDATES, parseJws, Refusal, type JwsHeader } from './jws.js';
import type { AudienceBoundVerifier, VerifyOptions } from './principal.js';
import { RemoteKeySet, type KeySetTimings } from './remote-key-set.js';
import { claimsOf, scopesOfClaims } from './scopes.js';
import { confirmationOf } from './confirmation.js';
import type { TokenConfirmation } from '@trpc-oauth2/core';

// RFC 7518 §3.1 and RFC 8037: the signature algorithms a verifier may pin. `none` is not one of them.
const HMAC_ALGORITHMS = { HS256: 32, HS384: 48, HS512: 64 } as const; // → the smallest key, in bytes (RFC 7518 §3.2)
const ASYMMETRIC_ALGORITHMS = new Set([
  'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519',
]);
// RFC 9068 §2.1: JWT access tokens carry `typ: at+jwt` (jose also accepts `application/at+jwt`).
const ACCESS_TOKEN_TYPE = 'at+jwt';

/**
 * A JWS algorithm signed with a shared secret (RFC 7518 §3.2).
 *
 * @example
 * ```ts
 * const algorithm: HmacAlgorithm = 'HS256';
 * ```
 */
export type HmacAlgorithm = keyof typeof HMAC_ALGORITHMS;

/**
 * A JWS algorithm signed with a private key and verified with its public key (RFC 7518, RFC 8037).
 *
 * @example
 * ```ts
 * const algorithms: AsymmetricAlgorithm[] = ['RS256', 'ES256'];
 * ```
 */
export type AsymmetricAlgorithm =
  | 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA' | 'Ed25519';

/**
 * What {@link jwtVerifier} returns for a valid JWT access token.
 *
 * @example
 * ```ts
 * const principal: JwtPrincipal = await verify(token);
 * principal.subject; // the `sub` claim
 * principal.scopes; // from `scope` ('a b') or `scp` (['a', 'b'])
 * ```
 */
export interface JwtPrincipal<TClaims = JWTPayload> {
  /** The `sub` claim: the resource owner, or the client itself for client credentials. */
  readonly subject: string;
  /** The scopes the token grants: `scope` split on spaces, or `scp`. */
  readonly scopes: readonly string[];
  /**
   * When the token stops being accepted, seconds since the epoch: the `exp` claim, or `iat +
   * maxTokenAge` when `maxTokenAge` is set and that comes first. `cacheVerifier` keeps the
   * principal no longer, and a reader ends a subscription then (docs/contract.md#verified-readers).
   */
  readonly expiresAt: number;
  /** The payload, as the `claims` schema parsed it (the JWT payload when there is no schema). */
  readonly claims: TClaims;
  /** The `cnf` claim: with `jkt`, the DPoP key the token is bound to (RFC 9449 §6.1). */
  readonly cnf?: TokenConfirmation;
  /** `acr`: the authentication context class of the user's login (RFC 9068 §2.2.1), when the token says. */
  readonly acr?: string;
  /** `amr`: the authentication methods of the user's login, when the token says. */
  readonly amr?: readonly string[];
  /** `auth_time`: when the user logged in, seconds since the epoch, when the token says. */
  readonly authTime?: number;
}

/**
 * The options every {@link jwtVerifier} takes, whatever its key.
 *
 * @example
 * ```ts
 * const common: JwtVerifierCommonOptions = { issuer: 'https://issuer.example', audience: 'https://api.example' };
 * ```
 */
export interface JwtVerifierCommonOptions<TClaims = JWTPayload> {
  /** The `iss` the token must carry (one of, for an array). Required: a token of another issuer is refused. */
  issuer: string | readonly [string, ...string[]];
  /**
   * The `aud` the token must name (one of, for an array). Required, with no way to opt out: a token
   * minted for another API must never be accepted here (RFC 9068 §4).
   */
  audience: string | readonly [string, ...string[]];
  /** Seconds of clock skew tolerated on `exp`, `nbf` and `iat`: a finite number, 0 or more. Default `0`. */
  clockTolerance?: number;
  /**
   * Seconds after `iat` from which the token is refused, as it is from `exp` on (`iat` is then
   * required, and refused in the future): a finite number, more than 0. The principal's `expiresAt` is then `iat +
   * maxTokenAge` when that comes before `exp`. Default: no limit.
   */
  maxTokenAge?: number;
  /** Require the RFC 9068 header `typ: at+jwt` (an ID token is then never taken for an access token). Default `false`. */
  requireAccessTokenType?: boolean;
  /**
   * A zod 4 schema the payload must satisfy; its output is `principal.claims` (so an `z.object`
   * keeps only the keys it names: use `z.looseObject` to keep the others). A payload it reports
   * issues with is refused (401); a schema that throws rejects the verification with what it threw,
   * a fault of the server's (the reader answers 500). Default: the payload.
   */
  claims?: z.ZodType<TClaims>;
}

/**
 * The key as a public key: a `CryptoKey`, a Node `KeyObject` or a public JWK.
 *
 * @example
 * ```ts
 * const options: JwtPublicKeyOptions = { key: publicJwk, algorithms: ['ES256'] };
 * ```
 */
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
 *
 * @example
 * ```ts
 * const options: JwtSecretOptions = { secret: process.env.JWT_SECRET!, algorithms: ['HS256'] };
 * ```
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
 * The keys as the authorization server's JSON Web Key Set, fetched and kept so that it holds in
 * production: a token whose `kid` the set lacks makes it refetch at once (one fetch at a time), so
 * a rotated key verifies from its first token; a `kid` already looked for in vain waits
 * `cooldownDuration`; such refetches start at least `minRefetchInterval` apart (a token arriving
 * sooner waits for the next, so forged `kid`s cannot make the set refetch faster); a failed fetch
 * is not retried for `failureCooldownDuration`; and past `cacheMaxAge`, while the refetch is on
 * the wire and while the set cannot be fetched, the keys already known keep verifying for
 * `staleIfErrorDuration`, so no token waits for a key set server that hangs. A fetch that fails or
 * times out with no usable keys answers 503 (see {@link verifierUnavailableError}).
 *
 * @example
 * ```ts
 * const options: JwtJwksOptions = { jwksUrl: 'https://issuer.example/jwks', algorithms: ['RS256'] };
 * ```
 */
export interface JwtJwksOptions {
  /** The `jwks_uri`: `https:`, or `http:` on a loopback host only. */
  jwksUrl: string | URL;
  /** The algorithms accepted, pinned (never read from the token alone). */
  algorithms: readonly [AsymmetricAlgorithm, ...AsymmetricAlgorithm[]];
  /**
   * Milliseconds during which a `kid` already looked for in vain is refused without a new fetch.
   * A `kid` never seen triggers a fetch at once. Default `30_000`.
   */
  cooldownDuration?: number;
  /**
   * Milliseconds between two refetches for `kid`s the set lacks, at least, whichever the `kid`s:
   * a token with an unknown `kid` arriving sooner waits for the next refetch (one, shared by all
   * that wait) instead of failing. It bounds what tokens with forged random `kid`s can make the
   * set fetch (one fetch per interval), so they cannot exhaust the authorization server's rate
   * limit; a rotated key's first token waits at most this long, and only right after another
   * such refetch. Past `cacheMaxAge` the waiting refetch is sent at once (the set is due for one
   * whatever the `kid`s), so forged `kid`s cannot delay it. `0` refetches at once every time.
   * Default `1_000`.
   */
  minRefetchInterval?: number;
  /**
   * Milliseconds a fetch of the key set may take before the verification answers 503: a whole
   * number from 1 to 2³¹ − 1. Default `5_000`.
   */
  timeoutDuration?: number;
  /**
   * Milliseconds the fetched key set is used before it is fetched again: the first verification
   * after it starts the refetch. Default `600_000`.
   */
  cacheMaxAge?: number;
  /**
   * Milliseconds past `cacheMaxAge` during which the keys already known keep verifying while the
   * refetch is on the wire (stale-while-revalidate: no token waits for it) and while the set cannot
   * be fetched (stale-if-error); after that, a verification waits for the set, and 503 when it
   * cannot be fetched. `0` makes every verification past `cacheMaxAge` wait for the refetch.
   * Default `3_600_000`.
   */
  staleIfErrorDuration?: number;
  /** Milliseconds after a failed fetch during which no verification fetches again. Default `5_000`. */
  failureCooldownDuration?: number;
  key?: never;
  secret?: never;
}

/**
 * The options of {@link jwtVerifier}: the common ones and exactly one key source.
 *
 * @example
 * ```ts
 * const options: JwtVerifierOptions = {
 *   jwksUrl: 'https://issuer.example/jwks', algorithms: ['RS256'],
 *   issuer: 'https://issuer.example', audience: 'https://api.example',
 * };
 * ```
 */
export type JwtVerifierOptions<TClaims = JWTPayload> = JwtVerifierCommonOptions<TClaims> &
  (JwtPublicKeyOptions | JwtSecretOptions | JwtJwksOptions);

/**
 * A verifier of JWT access tokens (RFC 9068, RFC 7519): signature with the pinned algorithms,
 * `iss`, `aud`, `exp` (required), `nbf`, `iat`, optionally `typ: at+jwt`, then `sub` (required),
 * the scopes and the `claims` schema. Every refusal is core's `invalidTokenError` (401) with one
 * of the fixed {@link TOKEN_REFUSALS}; a key set that cannot be fetched is a 503
 * ({@link verifierUnavailableError}). Options it cannot honour throw a `TypeError` when it is built
 * (a duration that is not a finite number in range among them: `NaN` or `'30s'` would otherwise
 * disable the check it bounds).
 * The verifier exposes `audience`, read-only, for the check of what a server advertises.
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
export function jwtVerifier<TClaims = JWTPayload>(options: JwtVerifierOptions<TClaims>): AudienceBoundVerifier<JwtPrincipal<TClaims>> {
  return jwtVerifierOn(runtimeSignature, options);
}

/**
 * {@link jwtVerifier} with the signature checked by `step`: `node:crypto` on Node, WebCrypto
 * elsewhere (core's `#signature` import condition picks one when core loads, and
 * `@trpc-oauth2/core/protocol` hands it on). Everything else, the JWS header checks, the key set
 * and the claim checks, is the same code for every step.
 *
 * @example
 * ```ts
 * const verify = jwtVerifierOn(webSignature, { key: publicJwk, algorithms: ['ES256'], issuer, audience });
 * ```
 */
export function jwtVerifierOn<TClaims = JWTPayload>(
  step: SignatureStep,
  options: JwtVerifierOptions<TClaims>,
): AudienceBoundVerifier<JwtPrincipal<TClaims>> {
  const keys = keysOf(step, options);
  assertNonEmpty(options.issuer, 'issuer');
  assertNonEmpty(options.audience, 'audience');
  const algorithms: ReadonlySet<string> = new Set(options.algorithms);
  const maxTokenAge = durationOption(options.maxTokenAge, undefined, 'maxTokenAge', 'seconds', 'positive');
  const rules: ClaimRules = {
    issuers: typeof options.issuer === 'string' ? [options.issuer] : [...options.issuer],
    audiences: typeof options.audience === 'string' ? [options.audience] : [...options.audience],
    clockTolerance: durationOption(options.clockTolerance, 0, 'clockTolerance', 'seconds', 'zeroOrMore'),
    ...(maxTokenAge === undefined ? {} : { maxTokenAge }),
    ...(options.requireAccessTokenType ? { typ: ACCESS_TOKEN_TYPE } : {}),
  };
  const schema = options.claims;

  /**
   * After the signature: the claims, the subject, the scopes (the schema comes after, in
   * `parsed`). `payload` is the payload segment as read before the signature: the same bytes the
   * signature covers, so reading it once is reading what was signed.
   */
  function principalOf(header: JwsHeader, payload: Record<string, unknown> | undefined): JwtPrincipal {
    if (payload === undefined) throw new Refusal(TOKEN_REFUSALS.invalid);
    checkClaims(header, payload, rules);
    if (typeof payload.sub !== 'string' || payload.sub === '') throw new Refusal(TOKEN_REFUSALS.invalid);
    const scopes = scopesOfClaims(payload);
    if (!scopes) throw new Refusal(TOKEN_REFUSALS.scope);
    const authentication = authenticationOf(payload);
    if (!authentication) throw new Refusal(TOKEN_REFUSALS.invalid);
    const cnf = confirmationOf(payload);
    const bound = cnf === undefined ? authentication : { ...authentication, cnf };
    const subject = payload.sub;
    // When the token stops being accepted: a cache keeps it, and a subscription lives, no longer.
    const until = maxTokenAge === undefined ? (payload.exp as number) : Math.min(payload.exp as number, (payload.iat as number) + maxTokenAge);
    // The clock tolerance accepts the token that long past it: so long may a cache keep it, and a stream live.
    const expiresAt = until + rules.clockTolerance;
    return { subject, scopes, expiresAt, claims: payload, ...bound };
  }

  /**
   * The principal with `claims` as the schema parsed them. Outside the refusal mapping: a schema
   * reporting issues refuses the token itself (401), while one that throws is a fault of the
   * server's code, which goes to the reader as it is (a 500, never a 401 blaming the token), as
   * introspectionVerifier's does (docs/contract.md#verified-readers).
   */
  const parsed = (principal: JwtPrincipal): JwtPrincipal<TClaims> | Promise<JwtPrincipal<TClaims>> =>
    schema === undefined ? (principal as JwtPrincipal<TClaims>) : claimsOf(principal.claims, schema).then((claims) => ({ ...principal, claims }));

  /** The signature checked with the candidates of `header` (at most 16). */
  const signatureOf = (header: JwsHeader, jws: CompactJws) => then(keys(header), (ready) => signedBy(step, header.alg, ready, jws));

  /**
   * A token without a `kid` that no candidate verified: the key set is fetched again (at most once
   * per `cooldownDuration`) and, when it was, its candidates are tried once more, so that the first
   * token of a rotated key verifies at once, as one with a `kid` does. Otherwise its refusal stands.
   */
  const afterRotation = async (header: JwsHeader, jws: CompactJws, seen: number | undefined, refusal: unknown): Promise<void> => {
    const refetch = keys.refetchForUnknownSigner;
    if (refetch === undefined || !byUnknownSigner(refusal) || !(await refetch(header, seen!))) throw refusal;
    await signatureOf(header, jws);
  };

  function verify(token: string): Promise<JwtPrincipal<TClaims>> {
    try {
      const { jws, header } = parseJws(token, step, algorithms);
      const payload = jsonSegment(step, jws.payload);
      // A token whose (unverified) `iss` names another issuer is another issuer's whoever signed
      // it, and is refused before any key is looked up: so another issuer's tokens, whose `kid`s
      // this key set never holds, cost no refetch of it; and the refusal says so, for `anyOf` to
      // answer with the refusal of the reader the token was meant for. Nothing unverified decides
      // an acceptance: a token that names one of the issuers still needs the signature.
      const iss = payload?.iss;
      if (typeof iss === 'string' && !rules.issuers.includes(iss)) throw new Refusal(TOKEN_REFUSALS.issuer);
      // The key set's requests sent before the token arrived (see `RemoteKeySet.requestsSent`).
      const seen = keys.requestsSent?.();
      // Synchronous all the way where the key is known and the step is (node:crypto): no
      // promise is awaited between the token and the principal.
      let verified: void | Promise<void>;
      try {
        verified = signatureOf(header, jws);
        if (verified instanceof Promise) verified = verified.catch((refusal: unknown) => afterRotation(header, jws, seen, refusal));
      } catch (refusal) {
        verified = afterRotation(header, jws, seen, refusal);
      }
      const checked = then(verified, () => principalOf(header, payload));
      const principal = then(checked instanceof Promise ? checked.catch(rethrow) : checked, parsed);
      return principal instanceof Promise ? principal : Promise.resolve(principal);
    } catch (error) {
      return Promise.reject(refusalError(error));
    }
  }

  const audience = Object.freeze(typeof options.audience === 'string' ? [options.audience] : [...options.audience]) as unknown as readonly [
    string,
    ...string[],
  ];
  const issuer = Object.freeze(typeof options.issuer === 'string' ? [options.issuer] : [...options.issuer]) as unknown as readonly [string, ...string[]];
  return Object.assign((token: string, verifyOptions?: VerifyOptions) => raceAbort(verify(token), verifyOptions?.signal), { audience, issuer });
}

/**
 * The authentication event a token names (RFC 9068 §2.2.1, for step-up: RFC 9470), only the
 * members it has; `undefined` when one has the wrong type (the token is then refused).
 */
function authenticationOf(payload: JWTPayload): { acr?: string; amr?: readonly string[]; authTime?: number } | undefined {
  const { acr, amr, auth_time: authTime } = payload as { acr?: unknown; amr?: unknown; auth_time?: unknown };
  if (acr !== undefined && typeof acr !== 'string') return undefined;
  if (amr !== undefined && !(Array.isArray(amr) && amr.every((method) => typeof method === 'string'))) return undefined;
  if (authTime !== undefined && !(typeof authTime === 'number' && Number.isFinite(authTime))) return undefined;
  return {
    ...(acr === undefined ? {} : { acr }),
    ...(amr === undefined ? {} : { amr: Object.freeze([...(amr as string[])]) }),
    ...(authTime === undefined ? {} : { authTime }),
  };
}

/** Whether `refusal` says no key the verifier holds signed the token (its signature, or its `kid`). */
const byUnknownSigner = (refusal: unknown): boolean =>
  refusal instanceof Refusal && (refusal.description === TOKEN_REFUSALS.signature || refusal.description === TOKEN_REFUSALS.unknownKey);

const rethrow = (error: unknown): never => {
  throw refusalError(error);
};

/**
 * The error a verification ends with: a 401 with its fixed description (another issuer's token:
 * core's `foreignTokenError`, which `anyOf` passes over for a refusal of the reader it was meant
 * for), or the key set's 503.
 */
function refusalError(error: unknown): unknown {
  if (error instanceof Refusal) return error.description === TOKEN_REFUSALS.issuer ? foreignTokenError(error.description) : invalidTokenError(error.description);
  if (error instanceof VerifierUnavailableError) return verifierUnavailableError(error);
  if (error instanceof TRPCError) return error; // already a refusal (the confirmation's)
  return invalidTokenError(TOKEN_REFUSALS.invalid); // a key that cannot verify this alg, and the like
}

/** `next(value)`, after `value` resolves when it is a promise. */
function then<T, U>(value: T | Promise<T>, next: (value: T) => U | Promise<U>): U | Promise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/**
 * Checks the signature with each candidate key (at most `MAX_CANDIDATES`): one, except for a key
 * set holding several keys of the algorithm without a `kid` to tell them apart. A candidate that
 * cannot verify `alg` (the step throws: an RSA key under 2048 bits or over 8192, say) is skipped, not the
 * token refused: another may have signed it. The refusal when none verifies depends on the
 * candidates that could answer, so that it is the same whether a step refuses such a key when
 * preparing it (node:crypto, and the key set then hands over the others only) or when verifying
 * (WebCrypto): with several, the signing key is unknown; with one, the signature is invalid; with
 * none, the key's own failure.
 */
function signedBy<TKey>(step: SignatureStep<TKey>, alg: string, candidates: readonly TKey[], jws: Parameters<SignatureStep['verify']>[2]): void | Promise<void> {
  let answered = 0;
  let failure: unknown;
  const tried = Math.min(candidates.length, MAX_CANDIDATES);
  // A loop, not a recursion: the synchronous steps answer in place, and the stack stays flat
  // however many candidates there are; only a step that answers with a promise waits for it.
  const attempt = (from: number): void | Promise<void> => {
    for (let index = from; index < tried; index++) {
      const answer = answerOf(step, alg, candidates[index]!, jws);
      if (answer instanceof Promise) {
        return answer.then((settled) => {
          if (settled === true) return undefined;
          if (settled === false) answered++;
          else failure ??= settled.failure;
          return attempt(index + 1);
        });
      }
      if (answer === true) return undefined;
      if (answer === false) answered++;
      else failure ??= answer.failure;
    }
    if (answered === 0) throw failure;
    throw new Refusal(answered > 1 ? TOKEN_REFUSALS.unknownKey : TOKEN_REFUSALS.signature);
  };
  return attempt(0);
}

/** `step.verify`'s answer, or what it threw (a key that cannot verify `alg`) as a value. */
function answerOf<TKey>(step: SignatureStep<TKey>, alg: string, key: TKey, jws: Parameters<SignatureStep['verify']>[2]): boolean | { failure: unknown } | Promise<boolean | { failure: unknown }> {
  try {
    const valid = step.verify(alg, key, jws);
    return valid instanceof Promise ? valid.catch((failure: unknown) => ({ failure })) : valid;
  } catch (failure) {
    return { failure };
  }
}

type KeySource = ((header: JwsHeader) => readonly unknown[] | Promise<readonly unknown[]>) & {
  /**
   * A key set's: fetches it again for a token no candidate verified, `true` when it did; `seen`
   * is what `requestsSent` read when the token arrived (see `RemoteKeySet`).
   */
  readonly refetchForUnknownSigner?: (header: JwsHeader, seen: number) => Promise<boolean>;
  /** A key set's: the requests for it sent so far. */
  readonly requestsSent?: () => number;
};

/** Where a verification's candidate keys come from, after the checks that make algorithm confusion impossible. */
function keysOf(step: SignatureStep, options: JwtPublicKeyOptions | JwtSecretOptions | JwtJwksOptions): KeySource {
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
    return fixedKey(step, secret, algorithms);
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
    return fixedKey(step, key, algorithms);
  }

  const url = secureUrl(options.jwksUrl!, 'jwksUrl');
  const keySet = new RemoteKeySet(url, keySetTimings(options), (key, alg) => step.prepare(key, alg));
  return Object.assign((header: JwsHeader) => keySet.keys(header), {
    refetchForUnknownSigner: (header: JwsHeader, seen: number) => keySet.refetchForUnknownSigner(header, seen),
    requestsSent: () => keySet.requestsSent,
  });
}

/**
 * The key set's timings, each checked (docs/contract.md#verified-readers): `timeoutDuration` is a
 * timer's delay (`AbortSignal.timeout` fails every fetch on a fraction), `minRefetchInterval` a
 * `setTimeout` delay, the others finite milliseconds, 0 or more.
 */
function keySetTimings(options: JwtJwksOptions): KeySetTimings {
  const ms = (value: unknown, fallback: number, option: string) => durationOption(value, fallback, option, 'milliseconds', 'zeroOrMore');
  return {
    cooldownDuration: ms(options.cooldownDuration, 30_000, 'cooldownDuration'),
    minRefetchInterval: durationOption(options.minRefetchInterval, 1_000, 'minRefetchInterval', 'milliseconds', 'delay'),
    timeoutDuration: durationOption(options.timeoutDuration, 5_000, 'timeoutDuration', 'milliseconds', 'timer'),
    cacheMaxAge: ms(options.cacheMaxAge, 600_000, 'cacheMaxAge'),
    staleIfErrorDuration: ms(options.staleIfErrorDuration, 3_600_000, 'staleIfErrorDuration'),
    failureCooldownDuration: ms(options.failureCooldownDuration, 5_000, 'failureCooldownDuration'),
  };
}

/**
 * A key given in the options, prepared once per pinned algorithm when the verifier is built. A
 * key that cannot verify an algorithm (another key type, curve or size) refuses the tokens that
 * name it.
 */
function fixedKey(step: SignatureStep, key: KeyMaterial, algorithms: readonly string[]): KeySource {
  const prepared = new Map<string, readonly unknown[] | Promise<readonly unknown[]>>();
  for (const algorithm of algorithms) {
    try {
      const ready = step.prepare(key, algorithm);
      const candidates = ready instanceof Promise ? ready.then((value) => [value]) : [ready];
      if (candidates instanceof Promise) candidates.catch(() => undefined); // refused when used
      prepared.set(algorithm, candidates);
    } catch (error) {
      const refused = Promise.reject(error);
      refused.catch(() => undefined); // refused when used, never unhandled
      prepared.set(algorithm, refused);
    }
  }
  return (header) => prepared.get(header.alg)!;
}

function assertNonEmpty(value: string | readonly string[], option: string): void {
  const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  if (values.length === 0 || values.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw new TypeError(`jwtVerifier needs ${option}: a non-empty string or array of strings`);
  }
}
