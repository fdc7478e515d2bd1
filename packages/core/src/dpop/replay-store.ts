/**
 * Where DPoP proofs' `jti` values are remembered, so that each proof is accepted once within the
 * window its `iat` allows (RFC 9449 §11.1). See docs/contract.md#dpop.
 * @module
 */

/**
 * Remembers proof identifiers. A store shared by every instance of a service (a database, a
 * cache) makes a proof accepted on one refused on all the others; the default is in memory, one
 * for the process, shared by every checker made without a store.
 *
 * @example
 * ```ts
 * const store: DPoPReplayStore = {
 *   async use(key, expiresAt) {
 *     const { rowCount } = await sql`insert into dpop_jti values (${key}, ${expiresAt}) on conflict do nothing`;
 *     return rowCount === 1;
 *   },
 *   async release(key, expiresAt) {
 *     await sql`delete from dpop_jti where key = ${key} and expires_at = ${expiresAt}`;
 *   },
 * };
 * ```
 */
export interface DPoPReplayStore {
  /**
   * Records `key` until `expiresAt` (seconds since the epoch). `true` when it was not recorded
   * yet (the proof is fresh), `false` when it was (a replay), and `false` too when it cannot be
   * recorded now (a full store, or `holder` holding its share of it): a proof is never accepted
   * without being remembered. It must be atomic: of two calls with one key, at most one sees `true`.
   *
   * `holder` is the RFC 7638 thumbprint of the proof's key (the checker always passes it): a store
   * may bound what one key takes, so that one client cannot fill the store for all the others.
   */
  use(key: string, expiresAt: number, holder?: string): boolean | Promise<boolean>;
  /**
   * Whether `use(key, …, holder)` would answer `false` now (the key is held, or the store cannot
   * hold it: full, or `holder`'s share taken), recording nothing. Optional: with it, a token
   * endpoint refuses such a proof before its grant runs, so that neither a replay nor a store
   * without room spends a single-use grant (the client's refresh token) and then refuses the
   * answer. `use` still decides: two requests racing with one proof both pass this look, and
   * only one is recorded.
   */
  wouldRefuse?(key: string, holder?: string): boolean | Promise<boolean>;
  /**
   * Forgets `key` as `use(key, expiresAt, holder)` recorded it (a key recorded since with another
   * `expiresAt` stays). Optional: with it, a token endpoint records a proof before its grant runs
   * and forgets it when the request fails, so that of requests racing with one proof only one
   * runs its grant, and failing requests hold no room once answered.
   */
  release?(key: string, expiresAt: number, holder?: string): void | Promise<void>;
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
  /**
   * How many unexpired identifiers it holds at most (default 100 000). When that many are held,
   * new ones are refused (`use` answers `false`) until some expire: dropping a live one would let
   * its proof be replayed. Size it for the peak rate of accepted proofs times their window
   * (`maxAge` + `clockSkew`, 70 s by default).
   */
  maxEntries?: number;
  /**
   * How many of those one proof key (`holder`) may hold at most (default a tenth of `maxEntries`,
   * at least 1). Past it, that key's new proofs are refused until some of its own expire, while
   * other keys' are still accepted: a client holding a valid bound token cannot fill the store
   * for everyone else (it takes that many keys, each with a token bound to it, to fill it). At
   * the defaults one key has 10 000 proofs in a 70-second window: about 140 requests a second.
   */
  maxEntriesPerKey?: number;
  /** The clock, in seconds since the epoch (for tests). */
  now?: () => number;
}

/**
 * An in-memory {@link DPoPReplayStore}, bounded: each identifier is dropped once its own
 * `expiresAt` passes (proofs carry their own `iat`, so the order they came in is not the order
 * they expire in), and when `maxEntries` unexpired ones are held, or `maxEntriesPerKey` of one
 * proof key's, new ones (of that key) are refused rather than a live one evicted (an evicted
 * identifier's proof would replay). A resource server's reader records a proof only once its
 * access token and binding are verified, so only holders of valid bound tokens take room in it,
 * each no more than its share (docs/contract.md#dpop). It protects one process: instances behind
 * a load balancer need a shared store.
 *
 * @example
 * ```ts
 * const verifyProof = dpopProofVerifier({ replay: memoryReplayStore({ maxEntries: 10_000 }) });
 * ```
 */
export function memoryReplayStore(options: MemoryReplayStoreOptions = {}): DPoPReplayStore {
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new TypeError('memoryReplayStore: `maxEntries` must be a positive integer');
  const maxEntriesPerKey = options.maxEntriesPerKey ?? Math.max(1, Math.floor(maxEntries / 10));
  if (!Number.isSafeInteger(maxEntriesPerKey) || maxEntriesPerKey < 1) throw new TypeError('memoryReplayStore: `maxEntriesPerKey` must be a positive integer');
  const now = options.now ?? (() => Date.now() / 1000);
  const seen = new Map<string, number>();
  // How many live entries each holder has: at most `maxEntries` holders, each counted while it holds one.
  const held = new Map<string, number>();
  // The same entries, nearest deadline first: expiry costs O(log n) per entry, whatever the order they came in.
  const deadlines = new DeadlineHeap();
  /** Drops every entry whose deadline passed by `time`. */
  const expire = (time: number) => {
    for (let next = deadlines.peek(); next !== undefined && next.expiresAt <= time; next = deadlines.peek()) {
      deadlines.pop();
      // Only the entry this deadline was pushed for: a key recorded again has a later one.
      if (seen.get(next.key) !== next.expiresAt) continue;
      seen.delete(next.key);
      if (next.holder === undefined) continue;
      const count = held.get(next.holder)! - 1;
      if (count === 0) held.delete(next.holder);
      else held.set(next.holder, count);
    }
  };
  /** Whether `key` of `holder` cannot be recorded now: held already, the store full, or the holder's share taken. */
  const refuses = (key: string, holder: string | undefined) =>
    seen.has(key) || seen.size >= maxEntries || (holder !== undefined && (held.get(holder) ?? 0) >= maxEntriesPerKey);
  const store: DPoPReplayStore & { [DEADLINES_HELD]: () => number } = {
    [DEADLINES_HELD]: () => deadlines.size,
    wouldRefuse(key, holder) {
      expire(now());
      return refuses(key, holder);
    },
    use(key, expiresAt, holder) {
      if (!Number.isFinite(expiresAt)) throw new TypeError('memoryReplayStore: `expiresAt` must be a number of seconds');
      expire(now());
      if (refuses(key, holder)) return false;
      const count = holder === undefined ? 0 : (held.get(holder) ?? 0);
      seen.set(key, expiresAt);
      if (holder !== undefined) held.set(holder, count + 1);
      deadlines.push({ key, expiresAt, holder });
      return true;
    },
    release(key, expiresAt, holder) {
      if (seen.get(key) !== expiresAt) return;
      // Its deadline stays in the heap and is skipped when it comes up (the key is no longer
      // held with it), as is the deadline of a key recorded again since.
      seen.delete(key);
      if (holder !== undefined) {
        const count = (held.get(holder) ?? 1) - 1;
        if (count <= 0) held.delete(holder);
        else held.set(holder, count);
      }
      // Forgotten keys' deadlines would stay until they pass, however many requests fail within
      // a window: once they outnumber the live entries, the heap keeps the live ones' only (one
      // per key), so it holds at most about twice what the store holds.
      if (deadlines.size > 2 * seen.size + COMPACT_SLACK) deadlines.keepOnly((deadline) => seen.get(deadline.key) === deadline.expiresAt);
    },
  };
  return store;
}

/**
 * How many deadlines a {@link memoryReplayStore} holds, forgotten ones included (not exported from
 * the package): what the tests bound, since a heap measure is too coarse for it.
 */
export const DEADLINES_HELD: unique symbol = Symbol('trpc-oauth2.deadlines-held') as never;

/** How many forgotten deadlines the heap may hold beyond twice the live entries before it drops them. */
export const COMPACT_SLACK = 1024;

interface Deadline {
  readonly key: string;
  readonly expiresAt: number;
  /** Whose entry it is, when the caller said (its count goes down when the entry expires). */
  readonly holder: string | undefined;
}

/** A binary min-heap of deadlines by `expiresAt`. */
class DeadlineHeap {
  #items: Deadline[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): Deadline | undefined {
    return this.#items[0];
  }

  /** Keeps the deadlines `live` accepts, the first of each key only: a sorted array is a heap. */
  keepOnly(live: (deadline: Deadline) => boolean): void {
    const kept = new Set<string>();
    this.#items = this.#items
      .filter((deadline) => live(deadline) && !kept.has(deadline.key) && kept.add(deadline.key) !== undefined)
      .sort((a, b) => a.expiresAt - b.expiresAt);
  }

  push(item: Deadline): void {
    const items = this.#items;
    let index = items.push(item) - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (items[parent]!.expiresAt <= item.expiresAt) break;
      items[index] = items[parent]!;
      index = parent;
    }
    items[index] = item;
  }

  pop(): void {
    const items = this.#items;
    const last = items.pop();
    if (last === undefined || items.length === 0) return;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child = right < items.length && items[right]!.expiresAt < items[left]!.expiresAt ? right : left;
      if (items[child]!.expiresAt >= last.expiresAt) break;
      items[index] = items[child]!;
      index = child;
    }
    items[index] = last;
  }
}
