import type { CryptoKey, JWK, KeyObject } from 'jose';

/**
 * What a signature step is handed as a key: a public key (CryptoKey, Node KeyObject, public JWK)
 * or the bytes of a shared secret.
 */
export type KeyMaterial = CryptoKey | KeyObject | JWK | Uint8Array;

/** A compact JWS cut into its three base64url segments (already checked to be base64url). */
export interface CompactJws {
  readonly token: string;
  readonly protectedHeader: string;
  readonly payload: string;
  readonly signature: string;
}

/**
 * The one part of a JWS verification that depends on the runtime: checking the signature. Its
 * callers, `jwtVerifier` (`@trpc-oauth2/jwt`, for access tokens) and `dpopProofVerifier` (for
 * DPoP proofs), cut the JWS and check its header (`alg` pinned, `crit` refused) and its claims in
 * the same code whichever step runs (see `../compact.ts`), so the two steps differ only in the
 * signature primitive.
 *
 * A step imports nothing of this package: it is loaded through the `#signature` import
 * condition of core's package.json (the one copy, which `@trpc-oauth2/jwt` reaches through
 * `@trpc-oauth2/core/protocol`), and must stay a leaf module.
 */
export interface SignatureStep<TKey = unknown> {
  /** Which primitive it uses, for tests and diagnostics. */
  readonly name: 'node:crypto' | 'webcrypto';
  /**
   * The key prepared once to verify `alg`. Throws a `TypeError` when the key cannot verify `alg`
   * (another key type or curve, an RSA modulus under 2048 bits or over 8192) or says it may not (a JWK's `alg`,
   * `use` or `key_ops`, a CryptoKey's algorithm or usages: both steps check these alike, see
   * `key-restrictions.ts`): the verification is then refused.
   * A step may instead leave that check to `verify` (WebCrypto's does), which then throws.
   */
  prepare(key: KeyMaterial, alg: string): TKey | Promise<TKey>;
  /**
   * The UTF-8 text of a base64url segment (already checked to hold base64url characters only);
   * `undefined` when its bytes are not UTF-8.
   */
  text(segment: string): string | undefined;
  /**
   * Whether `jws`'s signature verifies with `key` under `alg` (sync where the runtime allows).
   * Throws, rather than answer, for a key that cannot verify `alg` or was prepared for another.
   */
  verify(alg: string, key: TKey, jws: CompactJws): boolean | Promise<boolean>;
}
