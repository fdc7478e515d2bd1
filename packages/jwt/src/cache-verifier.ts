/**
 * `cacheVerifier`: a bounded LRU of verified principals in front of any verifier, so a token
 * checked over the network (introspection, a JWKS fetch) is not checked again per request.
 * @module
 */
import { deepFreeze } from '@trpc-oauth2/core/protocol';
import { TRPCError } from '@trpc/server';
import { LRUCache } from 'lru-cache';
import { raceAbort } from './abort.js';
import { MAX_TOKEN_LENGTH } from './jws.js';
import type { AudienceBoundVerifier, Principal, TokenVerifier, VerifyOptions } from './principal.js';
import { runtimeTokenDigest, type TokenDigest } from './token-digest.js';
import { isWellFormed } from './well-formed.js';

/** The options of {@link cacheVerifier}. */
export interface CacheVerifierOptions<TCtx = unknown> {
  /** The most principals kept; the least recently used goes first. A positive integer (its index, 8 bytes an entry, is reserved up front). */
  maxEntries: number;
  /**
   * Seconds a principal is kept at most, and never past its `expiresAt`. Default `300`. A revoked
   * token stays accepted for up to this long: keep it short for introspection.
   */
  maxAge?: number;
  /**
   * For a verifier whose answer depends on the request (a multi-tenant API choosing the issuer by
   * host, say): the part of the request that decides it. Principals are kept per token *and*
   * partition, so a token accepted for one tenant is never answered from the cache for another.
   * Without it every request shares one cache, which is right for a verifier that ignores the
   * request. A cache with a partition offers no `peek` (it needs the request to find an entry).
   */
  partition?: (options: VerifyOptions<TCtx>) => string;
}

interface Entry<TPrincipal> {
  readonly principal: TPrincipal;
  /** Milliseconds since the epoch. */
  readonly until: number;
}

/**
 * A verifier that remembers what `verifier` accepted, in a bounded LRU keyed by the SHA-256 of
 * the token (an entry costs the same whatever the token's length, and the cache holds no token).
 * Keyed by the token string: an ECDSA-signed token's second signature value `(r, n − s)`, another
 * string that verifies too, is verified on its own and kept as an entry of its own, with the same
 * principal (a deny list keys on `jti`, not on the string: docs/contract.md#verified-readers).
 *
 * - A principal is returned only before its `expiresAt` and before `maxAge`; after, the token is
 *   verified again (and refused, if it expired).
 * - A principal is shared by every caller of its verification, and while it is remembered by
 *   every request with its token: it is frozen, and so are its `scopes` (an array), its `cnf`
 *   and its `claims`, with every object inside them (a typed array a `claims` schema makes
 *   cannot be frozen: treat it as read-only).
 * - Refusals and failures are not cached: each is verified again, and a refusal forgets the token.
 *   A failure (503, the verifier cannot answer: its key set or endpoint is down) does not: what
 *   was remembered is still answered, within its `maxAge`.
 *   A verification of it under way then (an answer sent before a revocation, still on the wire)
 *   answers its own callers only: it is neither remembered nor shared with a later caller.
 * - A verification with `fresh: true` (a reader re-checking a running subscription's token) asks
 *   `verifier` (sharing a call already under way) and remembers its new answer.
 * - Concurrent verifications of one token share one call of `verifier`; each caller's `signal`
 *   aborts its own wait only.
 * - A token over 64 KiB, which `jwtVerifier` and `introspectionVerifier` refuse unread, is handed
 *   to `verifier` without being hashed, every time: it is never remembered, and `peek` answers
 *   `undefined` for it.
 *
 * - `peek(token)` answers a remembered, still valid principal synchronously (`undefined`
 *   otherwise): core's readers ask it first, so a token seen before costs a hash and a map lookup.
 *   On a runtime without `node:crypto` (an edge function) the key is WebCrypto's digest, which
 *   answers later: `peek` answers `undefined` there, and `verify` answers from the cache.
 *
 * - With `partition`, entries are kept per token and partition (see {@link CacheVerifierOptions.partition}).
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
/** A verifier that reads the ctx (`VerifyOptions<TCtx>`) stays one: a reader guarding it still needs that ctx. */
export function cacheVerifier<TPrincipal extends Principal, TCtx = any>(
  verifier: TokenVerifier<TPrincipal, TCtx>,
  options: CacheVerifierOptions<TCtx>,
): TokenVerifier<TPrincipal, TCtx>;
export function cacheVerifier<TPrincipal extends Principal>(verifier: TokenVerifier<TPrincipal>, options: CacheVerifierOptions): TokenVerifier<TPrincipal> {
  return cacheVerifierKeyedBy(verifier, options, runtimeTokenDigest);
}

/**
 * {@link cacheVerifier} with its keys computed by `tokenDigest` (this runtime's, for
 * `cacheVerifier`; handed in by the tests, as a runtime without `node:crypto` would pick it).
 * Not exported from the package.
 */
export function cacheVerifierKeyedBy<TPrincipal extends Principal>(
  verifier: TokenVerifier<TPrincipal>,
  options: CacheVerifierOptions,
  tokenDigest: TokenDigest | undefined,
): TokenVerifier<TPrincipal> {
  const { maxEntries, partition } = options;
  const maxAge = options.maxAge ?? 300;
  if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
  if (!(maxAge >= 0) || !Number.isFinite(maxAge)) throw new TypeError('maxAge must be a finite number of seconds, 0 or more');
  if (partition !== undefined && typeof partition !== 'function') throw new TypeError('partition must be a function of the verification options');
  if (tokenDigest === undefined) throw new TypeError('cacheVerifier needs SHA-256: this runtime has neither node:crypto nor WebCrypto (crypto.subtle)');
  // Node's digest answers at once: a remembered token is found without a trip through the event
  // loop. WebCrypto's answers later: only `verify` can find its entry, and `peek` finds nothing.
  const digestNow = tokenDigest.sync ? tokenDigest.digest : undefined;
  const digestLater = tokenDigest.sync ? undefined : tokenDigest.digest;

  // lru-cache moves a hit to the front without touching its index: a Map's delete and set would rehash.
  const entries = new LRUCache<string, Entry<TPrincipal>>({ max: maxEntries });
  /** Verifications under way, by key: any caller may share one. A refusal unlists every one of its key. */
  const pending = new Map<string, Promise<TPrincipal>>();
  /** Those made with `fresh: true`, the only ones a fresh caller may share: another may have been answered by a cache inside `verifier`. */
  const pendingFresh = new Map<string, Promise<TPrincipal>>();

  function remember(key: string, principal: TPrincipal, startedAt: number): void {
    const expiresAt = principal.expiresAt === undefined ? Infinity : principal.expiresAt * 1000;
    const until = Math.min(startedAt + maxAge * 1000, expiresAt);
    if (!(until > Date.now())) return;
    entries.set(key, { principal, until });
  }

  /**
   * `principal` frozen: every caller sharing its verification, and every later request with its
   * token while it is remembered, gets this one object. What it grants is frozen, so no middleware
   * can change it in place for them (a `Set` of scopes cannot be: treat it as read-only); and so
   * are the principal itself, its claims as deep as they go, and the binding it carries: a middleware assigning other `scopes`, a
   * later `expiresAt` or another `cnf` to `ctx.principal` would otherwise assign them for the
   * others (docs/contract.md#verified-readers).
   */
  function frozen(principal: TPrincipal): TPrincipal {
    if (typeof principal !== 'object' || principal === null) return principal; // no principal: the reader refuses it
    if (Array.isArray(principal.scopes) && !Object.isFrozen(principal.scopes)) Object.freeze(principal.scopes);
    const { cnf, claims } = principal as { cnf?: unknown; claims?: unknown };
    if (typeof cnf === 'object' && cnf !== null) Object.freeze(cnf);
    // The claims as deep as they go: a middleware writing a role into `claims.roles` would
    // otherwise write it for every later request with the token.
    deepFreeze(claims);
    return Object.freeze(principal);
  }

  /** The principal remembered under `key`, still valid; it becomes the most recently used. */
  function remembered(key: string): TPrincipal | undefined {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (Date.now() < entry.until) return entry.principal;
    entries.delete(key);
    return undefined;
  }

  function lookup(token: string, verifyOptions: VerifyOptions | undefined): Promise<TPrincipal> {
    // Longer than any verifier of this package reads: handed on unhashed, never remembered (see isCacheable).
    if (!isCacheable(token)) return verifier(token, verifyOptions);
    // The partition goes into the hash, so an entry still costs one digest whatever it holds.
    let text: string;
    let wellFormed: boolean;
    let key: string | undefined;
    try {
      text = partition === undefined ? token : partitioned(partitionOf(verifyOptions), token);
      wellFormed = isWellFormed(text);
      if (wellFormed && digestNow !== undefined) key = digestNow(text);
    } catch (error) {
      return Promise.reject(error); // a verifier answers with a promise, never a throw
    }
    // A string the digest cannot tell from another (a lone surrogate reads as U+FFFD) is verified, never remembered.
    if (!wellFormed) return verifier(token, verifyOptions);
    if (key !== undefined) return lookupKey(key, token, verifyOptions);
    // While WebCrypto hashes, the promise holds the token, as the verification it leads to does:
    // the cache keeps only the key.
    return digestLater!(text).then((digested) => lookupKey(digested, token, verifyOptions));
  }

  /** `fresh`: the caller needs the verifier's answer now (a running stream re-checks its token), not a remembered one. */
  function lookupKey(key: string, token: string, verifyOptions: VerifyOptions | undefined): Promise<TPrincipal> {
    const fresh = verifyOptions?.fresh === true;
    const known = fresh ? undefined : remembered(key);
    if (known !== undefined) return Promise.resolve(known);
    // A verification already under way is asking the verifier now; a fresh caller shares only a
    // fresh one (one made without `fresh` may be answered by a cache of the verifier's own).
    const shared = (fresh ? undefined : pending.get(key)) ?? pendingFresh.get(key);
    if (shared !== undefined) return shared;
    const startedAt = Date.now();
    // The shared call runs without any one caller's signal: one caller leaving must not fail the
    // others. It sees the first caller's request and ctx, which decide the answer for every
    // caller sharing it (they share a partition).
    const sharedOptions = verifyOptions === undefined ? undefined : { request: verifyOptions.request, ctx: verifyOptions.ctx, ...(fresh ? { fresh: true } : {}) };
    const under = fresh ? pendingFresh : pending;
    const call: Promise<TPrincipal> = verifier(token, sharedOptions).then(
      (answer) => {
        const principal = frozen(answer);
        // A call no longer listed was under way when the verifier refused the token (see below):
        // its answer may predate a revocation, so it goes to its own callers and nowhere else.
        if (under.get(key) !== call) return principal;
        under.delete(key);
        remember(key, principal, startedAt);
        return principal;
      },
      (error: unknown) => {
        // A verifier that cannot answer (503: the endpoint or key set is down) says nothing of the
        // token: what was remembered stays, for its `maxAge`, and the calls under way stay shared.
        if (isUnavailable(error)) {
          if (under.get(key) === call) under.delete(key);
          throw error;
        }
        // What the verifier refuses now is no longer remembered (a revoked token, say), nor
        // answered by a call under way for it: one sent before a fresh re-check was refused must
        // not put the token back for `maxAge`, nor answer a caller who comes after the refusal.
        // Unlisting those calls is the whole record of it: a refusal keeps nothing once they
        // settle, and a verification started after it is remembered as ever.
        pending.delete(key);
        pendingFresh.delete(key);
        entries.delete(key);
        throw error;
      },
    );
    under.set(key, call);
    return call;
  }

  function partitionOf(verifyOptions: VerifyOptions | undefined): string {
    if (verifyOptions === undefined) throw new TypeError('A cacheVerifier with a partition needs the verification options (the request)');
    const name = partition!(verifyOptions);
    if (typeof name !== 'string') throw new TypeError('partition must return a string');
    return name;
  }

  const verify = (token: string, verifyOptions?: VerifyOptions) => raceAbort(lookup(token, verifyOptions), verifyOptions?.signal);
  // Readers ask `peek` first: a remembered token is answered without a trip through the event
  // loop. Without a partition only: a partitioned entry cannot be found from the token alone.
  // Where the digest answers later, `peek` finds nothing (and keeps nothing): `verify` will.
  const peek =
    digestNow === undefined
      ? (_token: string): TPrincipal | undefined => undefined
      : (token: string): TPrincipal | undefined => (isCacheable(token) && isWellFormed(token) ? remembered(digestNow(token)) : undefined);
  const cached = partition === undefined ? Object.assign(verify, { peek }) : verify;
  // The cache accepts what the verifier accepts: it names the same audience and issuers.
  for (const member of ['audience', 'issuer'] as const) {
    const named = (verifier as { audience?: unknown; issuer?: unknown })[member];
    if (named !== undefined) Object.defineProperty(cached, member, { value: named, enumerable: true });
  }
  return cached;
}

/**
 * Whether a token is looked up at all: not when it is longer than `MAX_TOKEN_LENGTH` (64 KiB),
 * which `jwtVerifier` and `introspectionVerifier` refuse before reading any of it
 * (docs/contract.md#verified-readers). Its key would be a SHA-256 of the whole string, computed
 * on the event loop, by `peek` and again by `verify`: a token from a WebSocket's connection params
 * has no HTTP header limit above it, and one of 100 MB held the event loop for a second where the
 * verifier alone refuses it at once. Such a token goes to the verifier every time.
 */
const isCacheable = (token: string): boolean => token.length <= MAX_TOKEN_LENGTH;

/** Whether a verifier's failure is its being unavailable (503), not a refusal of the token. */
const isUnavailable = (error: unknown): boolean => error instanceof TRPCError && error.code === 'SERVICE_UNAVAILABLE';

/** A partition and a token as one string no other pair spells (the partition's length comes first). */
const partitioned = (name: string, token: string): string => `${name.length}:${name}:${token}`;

