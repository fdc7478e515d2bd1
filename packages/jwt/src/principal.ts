/**
 * What a verifier returns for a valid token: the scopes it grants and when it stops being valid.
 * Structurally the same as the principal `@trpc-oauth2/core` readers take from their `verify`
 * option (see `docs/contract.md#reading-the-authorization-header`).
 *
 * @example
 * ```ts
 * const principal: Principal = { scopes: ['me', 'items'], expiresAt: Math.floor(Date.now() / 1000) + 300 };
 * ```
 */
export interface Principal {
  /** The scopes the credential grants. */
  readonly scopes: readonly string[] | ReadonlySet<string>;
  /** When the credential stops being valid, seconds since the epoch; no cache keeps it past this. */
  readonly expiresAt?: number;
}

/**
 * Options every {@link TokenVerifier} takes.
 *
 * @example
 * ```ts
 * const options: VerifyOptions = { signal: AbortSignal.timeout(2_000) };
 * ```
 */
export interface VerifyOptions {
  /** Aborts the verification (the request went away); the verifier rejects with its reason. */
  signal?: AbortSignal;
}

/**
 * Turns a bearer token into a principal. A token it refuses rejects with core's
 * `invalidTokenError(description)` (401, `WWW-Authenticate: Bearer error="invalid_token"`); a
 * verifier that cannot reach its authorization server rejects with
 * {@link verifierUnavailableError} (503), never with a 401 that blames the client.
 *
 * @example
 * ```ts
 * const verify: TokenVerifier<Principal> = async (token) => {
 *   if (token !== 'let-me-in') throw invalidTokenError('The access token is invalid');
 *   return { scopes: ['me'] };
 * };
 * ```
 */
export type TokenVerifier<TPrincipal extends Principal> = (token: string, options?: VerifyOptions) => Promise<TPrincipal>;
