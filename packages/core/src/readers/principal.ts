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
  /** When the credential stops being valid, in seconds since the epoch (caches keep it no longer). */
  readonly expiresAt?: number;
}

/**
 * Options a reader passes to its {@link TokenVerifier}.
 *
 * @example
 * ```ts
 * const options: VerifyOptions = { signal: AbortSignal.timeout(2_000) };
 * ```
 */
export interface VerifyOptions {
  /** Aborts the verification (the request went away); the verifier rejects with its reason. */
  signal?: AbortSignal;
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
 * @typeParam TPrincipal - what it returns for an accepted credential.
 * @example
 * ```ts
 * const verify: TokenVerifier<Principal> = async (token) => {
 *   if (token !== 'let-me-in') throw invalidTokenError('The access token is invalid');
 *   return { scopes: ['me'] };
 * };
 * ```
 */
export interface TokenVerifier<TPrincipal extends Principal> {
  (token: string, options?: VerifyOptions): Promise<TPrincipal>;
  /**
   * The principal this verifier already holds for `token`, synchronously, or `undefined` (a
   * cache offers it, as `@trpc-oauth2/jwt`'s `cacheVerifier` does). Readers ask it first, so a
   * token seen before costs no trip through the event loop. It must never return a principal the
   * verifier would refuse now.
   */
  readonly peek?: (token: string) => TPrincipal | undefined;
}


/** Whether a verifier's result has the shape of a {@link Principal}. */
export function isPrincipal(value: unknown): value is Principal {
  if (typeof value !== 'object' || value === null) return false;
  const scopes = (value as { scopes?: unknown }).scopes;
  return Array.isArray(scopes) || scopes instanceof Set;
}
