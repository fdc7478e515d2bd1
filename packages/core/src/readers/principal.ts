/**
 * What a reader's `verify` option is: a {@link TokenVerifier} turns the credential a reader found
 * into a {@link Principal}, the scopes it grants. See docs/contract.md#verified-readers.
 * @module
 */

/**
 * What a verifier returns for a credential it accepts: the scopes it grants, and when it stops
 * being valid. `@trpc-oauth2/jwt`'s verifiers return principals of this shape with more fields.
 *
 * @example
 * ```ts
 * const principal: Principal = { scopes: ['me', 'items'], expiresAt: Math.floor(Date.now() / 1000) + 300 };
 * ```
 */
export interface Principal {
  /** The scopes the credential grants. */
  readonly scopes: readonly string[] | ReadonlySet<string>;
  /**
   * When the credential stops being valid, in seconds since the epoch (caches keep it no longer).
   * `undefined` (or absent): no expiry known; `| undefined` lets a principal type that always has
   * the member (`IntrospectionPrincipal`) be one under `exactOptionalPropertyTypes`.
   */
  readonly expiresAt?: number | undefined;
  /**
   * The key the token is bound to (RFC 7800 `cnf`): with `jkt`, the JWK SHA-256 thumbprint of a
   * DPoP key (RFC 9449 §6). A reader accepting DPoP requires a proof by that key, and refuses
   * such a token sent as `Bearer`.
   */
  readonly cnf?: TokenConfirmation;
}

/**
 * What a token is bound to (RFC 7800 §3.1, RFC 9449 §6.1): `jkt` for a DPoP key. A reader checks
 * `jkt` (with `dpop`) and refuses a token bound by any other method (mTLS's `x5t#S256`, a `jwk`):
 * it cannot check that binding, and the token must not pass as a bearer token. A verifier that
 * checks such a binding itself leaves it out of the principal's `cnf`.
 *
 * @example
 * ```ts
 * const cnf: TokenConfirmation = { jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I' };
 * ```
 */
export interface TokenConfirmation {
  readonly jkt?: string;
  readonly [member: string]: unknown;
}

/**
 * The request a credential came with, as the client sent it: what a verifier needs to pick an
 * issuer by host, or to check a proof bound to the method and the URL (DPoP).
 *
 * @example
 * ```ts
 * const verify: TokenVerifier<Principal> = async (token, options) => tenantOf(options?.request.url).verify(token);
 * ```
 */
export interface VerifyRequest {
  /** `GET`, `POST`, …; for a call with no HTTP request (`createCaller`): `POST` for a mutation, else `GET`. */
  readonly method: string;
  /**
   * The absolute URL the client used. Its origin is the reader's `origin` option when given (set it
   * behind a proxy: the `Host` header alone is the client's word); else the request's own.
   */
  readonly url: string;
  /** A request header (`name` in lower case); a header sent more than once reads as its values joined by `", "`. */
  header(name: string): string | undefined;
}

/**
 * What a reader passes to its {@link TokenVerifier}: the request and the procedure's ctx.
 *
 * @typeParam TCtx - the ctx the verifier expects (what your `createContext` returns).
 * @example
 * ```ts
 * const verify = async (token: string, options?: VerifyOptions<{ services: Services }>) => options!.ctx.services.tokens.verify(token);
 * ```
 */
export interface VerifyOptions<TCtx = unknown> {
  /** Aborts the verification (the request went away); the verifier rejects with its reason. */
  signal?: AbortSignal | undefined;
  /** The request the credential came with. */
  request: VerifyRequest;
  /** The procedure's ctx as the chain built it up to the reader (your `createContext`'s value and what middlewares added). */
  ctx: TCtx;
  /**
   * `true` when the answer must come from the source (the signature, the introspection endpoint),
   * not from a cache: a reader re-asks so while a subscription streams (`recheckInterval`), to
   * learn of a revocation. A caching verifier verifies again and keeps the new answer.
   */
  fresh?: boolean;
}

/**
 * Turns a credential into a principal. A credential it refuses rejects with
 * `invalidTokenError(description)` (an `OAuth2Error` with stable code `ERR_INVALID_TOKEN`): the
 * reader answers 401 `invalid_token`. Any other rejection is a fault of the server (5xx), never a
 * 401 that blames the client.
 *
 * A verifier that needs the request or the ctx declares its options as `VerifyOptions<YourCtx>`
 * (readers always pass them; a direct call, as in a test, may not).
 *
 * @typeParam TPrincipal - what it returns for an accepted credential (default {@link Principal}).
 * @typeParam TCtx - the ctx it reads from its options.
 * @example
 * ```ts
 * const verify: TokenVerifier<Principal> = async (token) => {
 *   if (token !== 'let-me-in') throw invalidTokenError('The access token is invalid');
 *   return { scopes: ['me'] };
 * };
 * ```
 */
export interface TokenVerifier<TPrincipal extends Principal = Principal, TCtx = any> {
  (token: string, options?: VerifyOptions<TCtx>): Promise<TPrincipal>;
  /**
   * The principal this verifier already holds for `token`, synchronously, or `undefined` (a
   * cache offers it, as `@trpc-oauth2/jwt`'s `cacheVerifier` does). Readers ask it first, so a
   * token seen before costs no trip through the event loop. It must never return a principal the
   * verifier would refuse now.
   */
  readonly peek?: (token: string) => TPrincipal | undefined;
  /**
   * The audiences (`aud`) a token must name to be accepted, when the verifier is bound to them
   * (`@trpc-oauth2/jwt`'s verifiers are). Protected resource metadata whose `resource` is not
   * among them is refused at start (docs/contract.md#protected-resource-metadata).
   */
  readonly audience?: readonly string[];
  /**
   * The issuers (`iss`) whose tokens it accepts, when it names them (`@trpc-oauth2/jwt`'s
   * verifiers do, and its introspection verifier when given `issuer`). Protected resource metadata
   * that advertises an authorization server not among them is refused at start
   * (docs/contract.md#protected-resource-metadata).
   */
  readonly issuer?: readonly string[];
}


/**
 * Whether a verifier's result has the shape of a {@link Principal}. An `expiresAt` that is there
 * but no finite number (`NaN` from `Number(undefined)`) is no expiry anyone could enforce: a
 * subscription would outlive the token (docs/contract.md#subscriptions), so the answer is refused.
 */
export function isPrincipal(value: unknown): value is Principal {
  if (typeof value !== 'object' || value === null) return false;
  const { scopes, expiresAt } = value as { scopes?: unknown; expiresAt?: unknown };
  return (Array.isArray(scopes) || scopes instanceof Set) && (expiresAt === undefined || Number.isFinite(expiresAt));
}

/** The refusal of a token bound by a method no reader here checks (the method is not named: its name comes from the token). */
export const UNCHECKED_BINDING = 'The access token is bound to a key or certificate this resource cannot check';

/**
 * The first confirmation method (a member of `cnf`, RFC 7800 §3.1) other than `checked`, the one
 * the reader checks itself: a binding nobody here can check, which must refuse the token.
 */
export function uncheckedConfirmation(cnf: TokenConfirmation | undefined, checked?: 'jkt'): string | undefined {
  if (typeof cnf !== 'object' || cnf === null) return undefined;
  for (const method of Object.keys(cnf)) if (method !== checked) return method;
  return undefined;
}
