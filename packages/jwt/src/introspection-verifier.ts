/**
 * `introspectionVerifier`: asks an RFC 7662 endpoint whether a token is active, for opaque tokens
 * and for servers that revoke. The answer is read within a size limit and mapped to a principal.
 * @module
 */
import { getOAuth2Error } from '@trpc-oauth2/core';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { encodeBasicCredentials, secureUrl } from '@trpc-oauth2/core/protocol';
import type { z } from 'zod/v4';
import { readBounded } from './bounded-body.js';
import { cacheVerifier } from './cache-verifier.js';
import { durationOption } from './durations.js';
import { MAX_TOKEN_LENGTH } from './jws.js';
import { TOKEN_REFUSALS, VerifierUnavailableError, verifierUnavailableError } from './errors.js';
import type { AudienceBoundVerifier, TokenVerifier, VerifyOptions } from './principal.js';
import { claimsOf, scopesOfClaims } from './scopes.js';
import { confirmationOf } from './confirmation.js';
import { isWellFormed } from './well-formed.js';
import { hasDuplicateNames } from './unique-names.js';
import type { TokenConfirmation } from '@trpc-oauth2/core';

// An introspection answer is a small JSON object; a larger body is the server misbehaving.
const MAX_RESPONSE_BYTES = 64 * 1024;
// RFC 7662 §2.2 `token_type` is an RFC 6749 §7.1 access token type, compared case-insensitively;
// some servers say what kind of token it is instead (RFC 8693 §3 names). `DPoP` is what RFC 9449
// §6.2 has a server answer for a DPoP-bound token (see DPOP_TOKEN_TYPE). Anything else (a refresh
// token, an ID token) is not an access token this resource may accept.
const ACCESS_TOKEN_TYPES = new Set(['bearer', 'dpop', 'access_token', 'urn:ietf:params:oauth:token-type:access_token']);
// A `DPoP` answer must say which key the token is bound to (`cnf.jkt`, RFC 9449 §6.2): without it
// the reader would take a token the server calls bound for a bearer token, and check no proof.
const DPOP_TOKEN_TYPE = 'dpop';
// RFC 6749 §5.2: the errors by which a server blames the client (this resource server), not the token.
const CLIENT_ERRORS = new Set(['invalid_client', 'unauthorized_client']);

/**
 * An RFC 7662 §2.2 introspection response: `active`, and the optional members a server may add.
 */
export interface IntrospectionResponse {
  active: boolean;
  scope?: string;
  client_id?: string;
  username?: string;
  token_type?: string;
  exp?: number;
  iat?: number;
  nbf?: number;
  sub?: string;
  aud?: string | string[];
  iss?: string;
  jti?: string;
  /** The key the token is bound to (RFC 9449 §6.2: `jkt` for DPoP). */
  cnf?: { jkt?: string; [member: string]: unknown };
  [member: string]: unknown;
}

/** What {@link introspectionVerifier} returns for an active token. */
export interface IntrospectionPrincipal<TClaims = IntrospectionResponse> {
  /** `sub`, when the server says: absent for a client's own token on many servers. */
  readonly subject: string | undefined;
  /** `client_id`, when the server says. */
  readonly clientId: string | undefined;
  /** `scope`, split on spaces. */
  readonly scopes: readonly string[];
  /** `exp`, seconds since the epoch, when the server says. */
  readonly expiresAt: number | undefined;
  /** The response, as the `claims` schema parsed it (the response itself when there is no schema). */
  readonly claims: TClaims;
  /** `cnf`, when the server says: with `jkt`, the DPoP key the token is bound to (RFC 9449 §6.2). */
  readonly cnf?: TokenConfirmation;
}

/** The options of {@link introspectionVerifier}. */
export interface IntrospectionVerifierOptions<TClaims = IntrospectionResponse> {
  /** The introspection endpoint: `https:`, or `http:` on a loopback host only. */
  endpoint: string | URL;
  /**
   * The `aud` an answer must name (one of, for an array): this resource's identifier (RFC 8707).
   * Required, with no way to opt out: an answer without `aud`, or whose `aud` names only other
   * resources, is refused, so another API's token (or a refresh token, which names none) is never
   * taken for this one's.
   */
  audience: string | readonly [string, ...string[]];
  /** The `iss` an answer must carry when it carries one (one of, for an array). Default: any. */
  issuer?: string | readonly [string, ...string[]];
  /** This resource server's client id at the authorization server (HTTP Basic, RFC 6749 §2.3.1). */
  clientId: string;
  /** Its client secret. */
  clientSecret: string;
  /** Milliseconds the endpoint may take before the verification answers 503: a whole number from 1 to 2³¹ − 1. Default `5_000`. */
  timeout?: number;
  /**
   * Seconds of clock skew tolerated on the answer's `exp` and `nbf`, which are checked against
   * this server's clock (an authorization server whose clock runs ahead says `nbf` is its now):
   * a finite number, 0 or more. Default `0`. As for `jwtVerifier`, the principal's `expiresAt` is
   * `exp` plus the tolerance.
   */
  clockTolerance?: number;
  /**
   * Remember active answers (see {@link cacheVerifier}): never past `exp` (plus `clockTolerance`), at most `maxAge` seconds
   * (default `60` here), so a revoked token stays accepted for up to `maxAge`. Inactive answers are
   * never cached. Default `false`: every verification asks the endpoint.
   */
  cache?: false | { maxEntries: number; maxAge?: number };
  /**
   * A zod 4 schema the response must satisfy; its output is `principal.claims`. A response it
   * reports issues with is refused (401); a schema that throws rejects the verification with what
   * it threw, a fault of the server's (the reader answers 500).
   */
  claims?: z.ZodType<TClaims>;
}

/**
 * A verifier that asks the authorization server (RFC 7662): it POSTs `token=…` as a form with
 * HTTP Basic client authentication, and maps the answer. `active: false` → 401 "The access token
 * is not active"; an `aud` that does not name `audience` (or no `aud`, or one that is not a
 * string or an array of strings) → 401; an `iss` that is not `issuer` → 401; a `token_type` that
 * is not an access token's (`Bearer`, or `DPoP` with `cnf.jkt`, RFC 9449 §6.2) → 401; an `exp`
 * already past → 401 expired; a malformed `scope` → 401; a member of {@link IntrospectionResponse}
 * with another type than it declares (`exp`, `iat`, `nbf` not numbers; `sub`, `client_id`,
 * `username`, `token_type`, `iss`, `jti` not strings) → 401, so `claims` holds what it says. A 400
 * from the endpoint is its refusal of the token (oidc-provider answers 400 for a JWT it does not
 * keep) → 401, and so is a 413 (the token is too large for the endpoint's body limit). An endpoint that fails, times
 * out, refuses this resource server's own credentials, answers another status, or answers a 200
 * that is not `application/json` (RFC 7662 §2.2), not a JSON object, or one naming a member twice
 * (RFC 8259 §4) → 503
 * ({@link verifierUnavailableError}). The verifier exposes `audience`, read-only.
 *
 * @example
 * ```ts
 * const verify = introspectionVerifier({
 *   endpoint: 'https://issuer.example/token/introspection',
 *   clientId: 'api',
 *   clientSecret: process.env.INTROSPECTION_SECRET!,
 *   audience: 'https://api.example',
 *   cache: { maxEntries: 10_000, maxAge: 30 },
 * });
 * const { subject, scopes } = await verify(token);
 * ```
 */
export function introspectionVerifier<TClaims = IntrospectionResponse>(
  options: IntrospectionVerifierOptions<TClaims>,
): AudienceBoundVerifier<IntrospectionPrincipal<TClaims>> {
  const url = secureUrl(options.endpoint, 'endpoint');
  // A timer's delay: a fraction or a delay past 2³¹ − 1 ms would fail every call (see durations.ts).
  const timeout = durationOption(options.timeout, 5_000, 'timeout', 'milliseconds', 'timer');
  const tolerance = durationOption(options.clockTolerance, 0, 'clockTolerance', 'seconds', 'zeroOrMore');
  if (typeof options.clientId !== 'string' || options.clientId === '') throw new TypeError('clientId must be a non-empty string');
  if (typeof options.clientSecret !== 'string') throw new TypeError('clientSecret must be a string');
  const audience = nonEmptyList(options.audience, 'audience');
  const issuers = options.issuer === undefined ? undefined : nonEmptyList(options.issuer, 'issuer');
  const authorization = `Basic ${encodeBasicCredentials(options.clientId, options.clientSecret)}`;
  const schema = options.claims;

  const verify: TokenVerifier<IntrospectionPrincipal<TClaims>> = async (token, verifyOptions?: VerifyOptions) => {
    // Not sent on: a client's megabytes would be posted to the authorization server at every call.
    if (token.length > MAX_TOKEN_LENGTH) throw invalidTokenError(TOKEN_REFUSALS.invalid);
    // Not sent on either: the form would carry U+FFFD for each lone surrogate, and the endpoint
    // would be asked about another token than this one.
    if (!isWellFormed(token)) throw invalidTokenError(TOKEN_REFUSALS.invalid);
    const response = await introspect(url, authorization, token, timeout, verifyOptions?.signal);
    if (response.active !== true) throw invalidTokenError(TOKEN_REFUSALS.inactive);
    const now = Date.now() / 1000;
    if (!isOptional(response.exp, isNumber) || !isOptional(response.nbf, isNumber)) throw invalidTokenError(TOKEN_REFUSALS.invalid);
    if (!isOptional(response.sub, isString) || !isOptional(response.client_id, isString)) throw invalidTokenError(TOKEN_REFUSALS.invalid);
    if (!isOptional(response.token_type, isString) || !isOptional(response.iss, isString)) throw invalidTokenError(TOKEN_REFUSALS.invalid);
    // The other RFC 7662 §2.2 members `IntrospectionResponse` types, so that `claims` holds what it says.
    if (!isOptional(response.iat, isNumber) || !isOptional(response.username, isString) || !isOptional(response.jti, isString)) {
      throw invalidTokenError(TOKEN_REFUSALS.invalid);
    }
    if (response.token_type !== undefined && !ACCESS_TOKEN_TYPES.has(response.token_type.toLowerCase())) {
      throw invalidTokenError(TOKEN_REFUSALS.type);
    }
    // An `aud` of the wrong type is a malformed answer, not one for another audience.
    if (response.aud !== undefined && !isAudienceClaim(response.aud)) throw invalidTokenError(TOKEN_REFUSALS.invalid);
    if (!namesAudience(response.aud, audience)) throw invalidTokenError(TOKEN_REFUSALS.audience);
    if (issuers !== undefined && response.iss !== undefined && !issuers.includes(response.iss)) throw invalidTokenError(TOKEN_REFUSALS.issuer);
    // The server said active, yet its own `exp` is past (its clock, or a cached answer): refused.
    if (response.exp !== undefined && response.exp + tolerance <= now) throw invalidTokenError(TOKEN_REFUSALS.expired);
    if (response.nbf !== undefined && response.nbf - tolerance > now) throw invalidTokenError(TOKEN_REFUSALS.notYetValid);
    const scopes = scopesOfClaims({ scope: response.scope });
    if (!scopes) throw invalidTokenError(TOKEN_REFUSALS.scope);
    const cnf = confirmationOf(response);
    if (isDPoPType(response.token_type) && cnf?.jkt === undefined) throw invalidTokenError(TOKEN_REFUSALS.confirmation);
    const claims = await claimsOf(response, schema);
    // The tolerance accepts the token that long past `exp`: so long may a cache keep it, and a stream live.
    const expiresAt = response.exp === undefined ? undefined : response.exp + tolerance;
    return { subject: response.sub, clientId: response.client_id, scopes, expiresAt, claims, ...(cnf === undefined ? {} : { cnf }) };
  };

  const verifier = options.cache
    ? cacheVerifier(verify, { maxEntries: options.cache.maxEntries, maxAge: options.cache.maxAge ?? 60 })
    : verify;
  Object.defineProperty(verifier, 'audience', { value: audience, enumerable: true });
  if (issuers !== undefined) Object.defineProperty(verifier, 'issuer', { value: Object.freeze([...issuers]), enumerable: true });
  return verifier as AudienceBoundVerifier<IntrospectionPrincipal<TClaims>>;
}

const isDPoPType = (tokenType: string | undefined) => tokenType?.toLowerCase() === DPOP_TOKEN_TYPE;

/**
 * Whether a `Content-Type` names JSON: `application/json`, or a type with the `+json` suffix
 * (RFC 6839 §3.1), whatever its parameters and case. No `Content-Type` is not JSON.
 */
function isJsonMediaType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const semicolon = contentType.indexOf(';');
  const essence = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  return essence === 'application/json' || (essence.startsWith('application/') && essence.endsWith('+json'));
}

/** RFC 7662 §2.2 / RFC 7519 §4.1.3: `aud` is one string or an array of strings. */
const isAudienceClaim = (aud: unknown): aud is string | string[] => typeof aud === 'string' || (Array.isArray(aud) && aud.every(isString));

/** Whether `aud` (absent, or of the type {@link isAudienceClaim} checks) names one of `audience`. */
function namesAudience(aud: unknown, audience: readonly string[]): boolean {
  if (typeof aud === 'string') return audience.includes(aud);
  return Array.isArray(aud) && aud.some((entry: string) => audience.includes(entry));
}

function nonEmptyList(value: string | readonly string[], option: string): readonly [string, ...string[]] {
  const values = typeof value === 'string' ? [value] : Array.isArray(value) ? [...(value as readonly unknown[])] : [];
  if (values.length === 0 || values.some((entry) => typeof entry !== 'string' || entry === '')) {
    throw new TypeError(`introspectionVerifier needs ${option}: a non-empty string or array of strings`);
  }
  return Object.freeze(values) as unknown as readonly [string, ...string[]];
}

async function introspect(
  url: URL,
  authorization: string,
  token: string,
  timeout: number,
  signal: AbortSignal | undefined,
): Promise<IntrospectionResponse> {
  const timer = AbortSignal.timeout(timeout);
  const unavailable = (message: string, cause?: unknown) =>
    verifierUnavailableError(new VerifierUnavailableError('ERR_INTROSPECTION_UNAVAILABLE', message, { cause }));
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
      signal: signal ? AbortSignal.any([signal, timer]) : timer,
      redirect: 'error',
    });
    if (response.status === 400) {
      // RFC 6749 §5.2: a 400 names what it refuses; unless it blames this resource server's own
      // credentials, what it refuses is the token (a JWT oidc-provider does not keep, say).
      // Read within the same bounds as any answer: one that takes too long or is too large is
      // the endpoint's failure (503), not a verdict on the token.
      const text = await readBounded(response, MAX_RESPONSE_BYTES, 'The introspection response');
      let refusal: unknown;
      try {
        refusal = JSON.parse(text);
      } catch {
        refusal = undefined; // no JSON: a 400 all the same, about the token
      }
      const error = (refusal as { error?: unknown } | null | undefined)?.error;
      if (typeof error === 'string' && CLIENT_ERRORS.has(error)) throw unavailable(`The introspection endpoint refused this resource server (${error})`);
      throw invalidTokenError(TOKEN_REFUSALS.rejected);
    }
    if (response.status === 413) {
      // The form is the token and its hint: a body the endpoint will not read (a proxy's or a body
      // parser's limit, often well under the 64 KiB read here) is a token too large, the client's
      // to fix. A 503 would say the authorization server is down, and invite a retry of the same.
      await response.body?.cancel();
      throw invalidTokenError(TOKEN_REFUSALS.tooLarge);
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw unavailable(`The introspection endpoint answered ${response.status}`);
    }
    // RFC 7662 §2.2: the answer is `application/json`. A 200 of another type (an HTML page of a
    // proxy or a misrouted catch-all that happens to hold JSON) is not the server's verdict.
    if (!isJsonMediaType(response.headers.get('content-type'))) {
      await response.body?.cancel();
      throw unavailable('The introspection endpoint answered something other than application/json');
    }
    const body = await readBounded(response, MAX_RESPONSE_BYTES, 'The introspection response');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw unavailable('The introspection endpoint answered something other than JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || typeof (parsed as { active?: unknown }).active !== 'boolean') {
      throw unavailable('The introspection endpoint answered without a boolean active');
    }
    // A member named twice (`"active"`, `"aud"`, a `cnf`'s `"jkt"`) says two things, and
    // JSON.parse reads only the last: such an answer admits no token.
    if (hasDuplicateNames(body)) throw unavailable('The introspection endpoint answered a member twice');
    return parsed as IntrospectionResponse;
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    if (error instanceof Error && error.cause instanceof VerifierUnavailableError) throw error;
    if (getOAuth2Error(error) !== undefined) throw error;
    throw unavailable(timer.aborted ? 'The introspection endpoint did not answer in time' : 'The introspection endpoint could not be reached', error);
  }
}

function isOptional<T>(value: unknown, is: (value: unknown) => value is T): value is T | undefined {
  return value === undefined || is(value);
}
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isString = (value: unknown): value is string => typeof value === 'string';
