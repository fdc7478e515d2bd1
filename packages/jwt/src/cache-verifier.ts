/**
 * `cacheVerifier`: a bounded LRU of verified principals in front of any verifier, so a token
 * checked over the network (introspection, a JWKS fetch) is not checked again per request.
 * @module
 */
import * as crypto from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { raceAbort } from './abort.js';
import type { AudienceBoundVerifier, Principal, TokenVerifier, VerifyOptions } from './principal.js';

/** The options of {@link cacheVerifier}. */
export interface CacheVerifierOptions {
  /** The most principals kept; the least recently used goes first. A positive integer (its index, 8 bytes an entry, is reserved up front). */
  maxEntries: number;
  /**
   * Seconds a principal is kept at most, and never past its `expiresAt`. Default `300`. A revoked
   * token stays accepted for up to this long: keep it short for introspection.
   */
  maxAge?: number;
}

interface Entry<TPrincipal> {
  readonly principal: TPrincipal;
  /** Milliseconds since the epoch. */
  readonly until: number;
}

/**
 * A verifier that remembers what `verifier` accepted, in a bounded LRU keyed by the SHA-256 of
 * the token (an entry costs the same whatever the token's length, and the cache holds no token).
 *
 * - A principal is returned only before its `expiresAt` and before `maxAge`; after, the token is
 *   verified again (and refused, if it expired).
 * - Refusals and failures are not cached: each is verified again, and a refusal forgets the token.
 * - A verification with `fresh: true` (a reader re-checking a running subscription's token) asks
 *   `verifier` (sharing a call already under way) and remembers its new answer.
 * - Concurrent verifications of one token share one call of `verifier`; each caller's `signal`
 *   aborts its own wait only.
 *
 * - `peek(token)` answers a remembered, still valid principal synchronously (`undefined`
 *   otherwise): core's readers ask it first, so a token seen before costs a hash and a map lookup.
 *
 * Nothing is cached unless a verifier is wrapped in it.
 *
 * @example
 * ```ts
 * const verify = cacheVerifier(jwtVerifier({ jwksUrl, algorithms: ['RS256'], issuer, audience }), { maxEntries: 10_000 });
 * const principal = await verify(token); // the second call with this token skips the signature
 * ```
 */
export function cacheVerifier<TPrincipal extends Principal>(
  verifier: AudienceBoundVerifier<TPrincipal>,
  options: CacheVerifierOptions,
): AudienceBoundVerifier<TPrincipal>;
export function cacheVerifier<TPrincipal extends Principal>(verifier: TokenVerifier<TPrincipal>, options: CacheVerifierOptions): TokenVerifier<TPrincipal>;
export function cacheVerifier<TPrincipal extends Principal>(
  verifier: TokenVerifier<TPrincipal>,
  options: CacheVerifierOptions,
): TokenVerifier<TPrincipal> {
  const { maxEntries } = options;
  const maxAge = options.maxAge ?? 300;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
  if (!(maxAge >= 0) || !Number.isFinite(maxAge)) throw new TypeError('maxAge must be a finite number of seconds, 0 or more');

  // lru-cache moves a hit to the front without touching its index: a Map's delete and set would rehash.
  const entries = new LRUCache<string, Entry<TPrincipal>>({ max: maxEntries });
  const pending = new Map<string, Promise<TPrincipal>>();

  function remember(key: string, principal: TPrincipal, startedAt: number): void {
    const expiresAt = principal.expiresAt === undefined ? Infinity : principal.expiresAt * 1000;
    const until = Math.min(startedAt + maxAge * 1000, expiresAt);
    if (!(until > Date.now())) return;
    entries.set(key, { principal, until });
  }

  /** The principal remembered under `key`, still valid; it becomes the most recently used. */
  function remembered(key: string): TPrincipal | undefined {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (Date.now() < entry.until) return entry.principal;
    entries.delete(key);
    return undefined;
  }

  /** `fresh`: the caller needs the verifier's answer now (a running stream re-checks its token), not a remembered one. */
  function lookup(token: string, fresh: VerifyOptions | undefined): Promise<TPrincipal> {
    const key = digest(token);
    const known = fresh ? undefined : remembered(key);
    if (known !== undefined) return Promise.resolve(known);
    // A verification already under way is asking the verifier now: a fresh caller may share it.
    let shared = pending.get(key);
    if (!shared) {
      const startedAt = Date.now();
      // The shared call runs without any one caller's signal: one caller leaving must not fail the others.
      shared = (fresh ? verifier(token, { request: fresh.request, ctx: fresh.ctx, fresh: true }) : verifier(token)).then(
        (principal) => {
          pending.delete(key);
          remember(key, principal, startedAt);
          return principal;
        },
        (error: unknown) => {
          pending.delete(key);
          // What the verifier refuses now is no longer remembered (a revoked token, say).
          entries.delete(key);
          throw error;
        },
      );
      pending.set(key, shared);
    }
    return shared;
  }

  const verify = (token: string, verifyOptions?: VerifyOptions) =>
    raceAbort(lookup(token, verifyOptions?.fresh === true ? verifyOptions : undefined), verifyOptions?.signal);
  // Readers ask `peek` first: a remembered token is answered without a trip through the event loop.
  const cached = Object.assign(verify, { peek: (token: string) => remembered(digest(token)) });
  // The cache accepts what the verifier accepts: it names the same audience.
  const audience = (verifier as { audience?: unknown }).audience;
  if (audience !== undefined) Object.defineProperty(cached, 'audience', { value: audience, enumerable: true });
  return cached;
}

/**
 * The cache key of a token: its SHA-256, computed synchronously (no trip through a worker
 * thread), by Node's one-shot `crypto.hash` where it exists (half the cost of a `Hash` object).
 */
const digest: (token: string) => string =
  typeof crypto.hash === 'function'
    ? (token) => crypto.hash('sha256', token, 'base64')
    : (token) => crypto.createHash('sha256').update(token).digest('base64');
