/**
 * The signature algorithms a DPoP proof may use: asymmetric only (RFC 9449 §4.3 check 5), from a
 * list this package pins rather than whatever a proof's header names.
 * @module
 */

/**
 * Every JWS algorithm a DPoP proof may be signed with: the asymmetric algorithms of RFC 7518 and
 * RFC 8037. `none` and the HMAC algorithms are never accepted (anyone could sign with them).
 *
 * @example
 * ```ts
 * DPOP_ALGORITHMS.includes('ES256'); // true
 * ```
 */
export const DPOP_ALGORITHMS = ['ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512', 'RS256', 'RS384', 'RS512', 'EdDSA', 'Ed25519'] as const;

/**
 * One of {@link DPOP_ALGORITHMS}.
 *
 * @example
 * ```ts
 * const algorithm: DPoPAlgorithm = 'ES256';
 * ```
 */
export type DPoPAlgorithm = (typeof DPOP_ALGORITHMS)[number];

/** What a verifier accepts when the application names no list: every pinned algorithm. */
export const DEFAULT_DPOP_ALGORITHMS: readonly DPoPAlgorithm[] = DPOP_ALGORITHMS;

/**
 * `algorithms` checked once, where they are configured: a non-empty list of pinned names, so a
 * typo or `'HS256'` fails at startup instead of refusing every proof.
 */
export function pinnedAlgorithms(algorithms: readonly string[] | undefined): readonly DPoPAlgorithm[] {
  if (algorithms === undefined) return DEFAULT_DPOP_ALGORITHMS;
  if (algorithms.length === 0) throw new TypeError('DPoP: `algorithms` must name at least one algorithm');
  for (const algorithm of algorithms) {
    if (!(DPOP_ALGORITHMS as readonly string[]).includes(algorithm)) {
      throw new TypeError(`DPoP: "${algorithm}" is not an asymmetric JWS algorithm (one of ${DPOP_ALGORITHMS.join(', ')})`);
    }
  }
  return [...new Set(algorithms)] as DPoPAlgorithm[];
}
