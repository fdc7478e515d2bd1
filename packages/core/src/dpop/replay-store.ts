/**
 * Where DPoP proofs' `jti` values are remembered, so that each proof is accepted once within the
 * window its `iat` allows (RFC 9449 §11.1). See docs/contract.md#dpop.
 * @module
 */

/**
 * Remembers proof identifiers. A store shared by every instance of a service (a database, a
 * cache) makes a proof accepted on one refused on all the others; the default is in memory, one
 * per verifier.
 *
 * @example
 * ```ts
 * const store: DPoPReplayStore = {
 *   async use(key, expiresAt) {
 *     const { rowCount } = await sql`insert into dpop_jti values (${key}, ${expiresAt}) on conflict do nothing`;
 *     return rowCount === 1;
 *   },
 * };
 * ```
 */
export interface DPoPReplayStore {
  /**
   * Records `key` until `expiresAt` (seconds since the epoch). `true` when it was not recorded
   * yet (the proof is fresh), `false` when it was (a replay). It must be atomic: of two calls
   * with one key, at most one sees `true`.
   */
  use(key: string, expiresAt: number): boolean | Promise<boolean>;
}

/**
 * What {@link memoryReplayStore} may be told.
 *
 * @example
 * ```ts
 * const options: MemoryReplayStoreOptions = { maxEntries: 10_000 };
 * ```
 */
export interface MemoryReplayStoreOptions {
  /** How many identifiers it holds at most (default 100 000); past it, the oldest goes first. */
  maxEntries?: number;
  /** The clock, in seconds since the epoch (for tests). */
  now?: () => number;
}

/**
 * An in-memory {@link DPoPReplayStore}, bounded: expired identifiers are dropped as new ones come,
 * and when `maxEntries` unexpired ones are held the oldest is dropped (proofs are kept in the
 * order they came, so the oldest is the nearest to leaving its window anyway). It protects one
 * process: instances behind a load balancer need a shared store.
 *
 * @example
 * ```ts
 * const verifyProof = dpopProofVerifier({ replay: memoryReplayStore({ maxEntries: 10_000 }) });
 * ```
 */
export function memoryReplayStore(options: MemoryReplayStoreOptions = {}): DPoPReplayStore {
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new TypeError('memoryReplayStore: `maxEntries` must be a positive integer');
  const now = options.now ?? (() => Date.now() / 1000);
  // Insertion order is arrival order, so expired entries gather at the front.
  const seen = new Map<string, number>();
  return {
    use(key, expiresAt) {
      const time = now();
      for (const [oldKey, oldExpiry] of seen) {
        if (oldExpiry > time) break;
        seen.delete(oldKey);
      }
      const known = seen.get(key);
      if (known !== undefined && known > time) return false;
      seen.delete(key);
      if (seen.size >= maxEntries) seen.delete(seen.keys().next().value as string);
      seen.set(key, expiresAt);
      return true;
    },
  };
}
