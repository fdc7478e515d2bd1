import { createLocalJWKSet, errors, type CryptoKey, type JSONWebKeySet, type JWK, type JWTVerifyGetKey, type KeyObject } from 'jose';
import { readBounded } from './bounded-body.js';
import { TOKEN_REFUSALS, VerifierUnavailableError } from './errors.js';
import { MAX_CANDIDATES, Refusal, type JwsHeader } from './jws.js';

/**
 * How long a remote key set keeps, refetches and survives its server; milliseconds.
 */
export interface KeySetTimings {
  /** A `kid` that was already looked for (and not found) triggers no new fetch for this long. */
  cooldownDuration: number;
  /**
   * Two fetches for a `kid` the set lacks start at least this long apart, whatever the `kid`s: a
   * token arriving sooner waits for the next one (shared), so forged `kid`s cannot make the set
   * refetch faster than this. Past `cacheMaxAge` the one waiting is sent at once: the set is due
   * for a refetch whatever the `kid`s, and forged ones must not delay it.
   */
  minRefetchInterval: number;
  /** A fetch that takes longer fails. */
  timeoutDuration: number;
  /** The fetched set is fresh for this long; the next verification after it refetches. */
  cacheMaxAge: number;
  /** Past `cacheMaxAge`, while it is refetched or cannot be fetched, its keys keep verifying for this long. */
  staleIfErrorDuration: number;
  /** After a failed fetch, no new fetch for this long (the failure answers at once). */
  failureCooldownDuration: number;
}

type Candidate = CryptoKey | KeyObject | JWK;

interface Fetched<TKey> {
  readonly select: JWTVerifyGetKey;
  readonly at: number;
  /**
   * The number of the request this set answers (see `RemoteKeySet.#requests`). A caller that
   * read a lower count when it arrived came before the request was sent: the set holds every key
   * published before that caller's token. One that read this count or a higher one may have come
   * while the request was on the wire, and the set may predate its key.
   */
  readonly request: number;
  /**
   * The keys prepared from this set, by `kid` and algorithm. They live with the set they were
   * selected from: a key prepared from a set that a refetch replaced (while jose selected or the
   * step prepared) lands in the old set's map, never in the new one's, so a key the server removed
   * is never trusted again past the refetch that removed it.
   */
  readonly prepared: Map<string, Promise<readonly TKey[]> | readonly TKey[]>;
  /**
   * The candidates of a header that several keys of this set match, by `kid` and algorithm, found
   * once per set. jose imports such keys one by one and passes over, unseen, those it cannot
   * import: a set of many unusable keys (points off their curve) would otherwise be imported whole
   * for every token matching them (a forged token without a `kid`), whatever `MAX_CANDIDATES`
   * says, since it counts only the keys that imported. Bounded by the set: only a header that
   * matches keys of the set is kept.
   */
  readonly several: Map<string, Promise<readonly Candidate[]>>;
}

/** The candidates a set holds for a header (none: the set lacks its `kid`), and which set said so. */
interface Selection<TKey> {
  readonly from: Fetched<TKey>;
  readonly candidates: readonly Candidate[] | undefined;
}

// A key set answer larger than this is no key set (bounded memory whatever the server sends).
const MAX_BODY_BYTES = 1 << 20;
// The unknown `kid`s remembered for their cooldown, at most (the oldest is forgotten first). Cycling
// through more `kid`s than this to make one be looked for again gains nothing: every fetch for an
// unknown `kid` counts against `minRefetchInterval`, so the rate of fetches is bounded whatever
// `kid`s arrive; the cooldown only spares a `kid` known to be missing the wait for the next fetch.
const MAX_TRIED_KIDS = 1024;

/**
 * Where a token without a `kid` is remembered: `kid: ""` is a `kid` (a key whose `kid` is empty
 * matches it, as in jose's own look-up) and must not share what a token without one is answered.
 */
const NO_KID = Symbol('no kid');
const kidOf = (header: JwsHeader): string | typeof NO_KID => (typeof header.kid === 'string' ? header.kid : NO_KID);

/**
 * A key of the set as jose imports it: `key_ops` that name `verify` are dropped once they have
 * said the key may verify, the rule a key given as `key` is held to (`key_ops` that lack `verify`
 * refuse the token, docs/contract.md#verified-readers). jose hands `key_ops` to WebCrypto as the key's usages, which
 * refuses a public key with any usage but `verify`: a key whose `key_ops` name `verify` among
 * others (a key pair's `["sign", "verify"]`, a key vault's every operation, RFC 7517 §4.3) would
 * refuse every token it signed. Any other `key_ops` stay, for jose to refuse the key.
 */
const verifiable = (key: Record<string, unknown>): Record<string, unknown> => {
  if (!Array.isArray(key.key_ops) || !key.key_ops.includes('verify')) return key;
  const { key_ops: _keyOps, ...rest } = key;
  return rest;
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The first `MAX_CANDIDATES` keys jose imports of those a header matches: no more than a token is
 * checked with, so a key set of thousands is not imported for one token. Never rejects (jose
 * passes over a key it cannot import).
 */
async function firstCandidates(matching: AsyncIterable<CryptoKey>): Promise<readonly Candidate[]> {
  const candidates: Candidate[] = [];
  for await (const candidate of matching) {
    candidates.push(candidate);
    if (candidates.length === MAX_CANDIDATES) break;
  }
  return candidates;
}

/**
 * The authorization server's JSON Web Key Set (`jwks_uri`), fetched and kept in a way that holds
 * in production:
 *
 * - **rotation**: a token whose `kid` the set does not hold triggers a refetch at once (one fetch
 *   at a time, shared by every verification waiting on it); a fetch it joins that was sent before
 *   it arrived may predate its key, so a `kid` still missing then is looked for in the next fetch
 *   (sent after it arrived); only a `kid` that a fetch sent after it arrived lacked waits
 *   `cooldownDuration` before it may trigger another;
 * - **forged `kid`s**: such refetches start at least `minRefetchInterval` apart; a token with an
 *   unknown `kid` arriving sooner waits for the next one, shared by all that wait, instead of
 *   failing, so random `kid`s cannot exhaust the authorization server's rate limit and a rotated
 *   key's first token is still verified, at worst `minRefetchInterval` later;
 * - **failures**: a fetch that fails is remembered for `failureCooldownDuration`, during which no
 *   verification fetches again (no request storm against a server that is down);
 * - **stale-while-revalidate, stale-if-error**: past `cacheMaxAge`, the first verification starts
 *   a refetch and none waits for it: keys already known keep verifying for `staleIfErrorDuration`
 *   while it is on the wire and while the set cannot be fetched; after that, a verification waits
 *   for the set, and 503 when it cannot be fetched.
 *
 * jose picks the key among the set (`kid`, `kty`, `alg`, `use`, `key_ops`, curve); the key found
 * is prepared once per `kid` and algorithm by the signature step.
 */
export class RemoteKeySet<TKey> {
  #fetched: Fetched<TKey> | undefined;
  /** The requests for the set sent so far: each fetch numbers its request, when it sends it. */
  #requests = 0;
  /** The fetch under way, or the one for an unknown `kid` waiting for `minRefetchInterval`. */
  #pending: Promise<void> | undefined;
  /** While the pending fetch waits for `minRefetchInterval`: sends it at once. */
  #wake: (() => void) | undefined;
  /** When the last fetch for an unknown `kid` started (ms since the epoch). */
  #refetchedAt = -Infinity;
  #failure: { at: number; error: VerifierUnavailableError } | undefined;
  readonly #tried = new Map<string | typeof NO_KID, number>();

  constructor(
    private readonly url: URL,
    private readonly timings: KeySetTimings,
    private readonly prepare: (key: Candidate, alg: string) => TKey | Promise<TKey>,
  ) {}

  /**
   * The keys that may have signed a token with this header: one, or several when the set holds
   * several candidates without a `kid` to tell them apart. Synchronous once known.
   */
  keys(header: JwsHeader): readonly TKey[] | Promise<readonly TKey[]> {
    // The requests sent before the token arrived: the refetch it starts itself is not one of them.
    const seen = this.#requests;
    // `alg` is one of the pinned algorithms (no NUL in it), so the last NUL ends the `kid` part.
    const kid = kidOf(header);
    const id = `${kid === NO_KID ? '' : `#${kid}`}\u0000${header.alg}`;
    const fetched = this.#fetched;
    if (fetched !== undefined) {
      const age = Date.now() - fetched.at;
      const fresh = age < this.timings.cacheMaxAge;
      if (fresh || age < this.timings.cacheMaxAge + this.timings.staleIfErrorDuration) {
        if (!fresh) this.#revalidate();
        const known = fetched.prepared.get(id);
        if (known !== undefined) return known;
        return this.#find(header, id, seen);
      }
    }
    return this.#refresh(false).then(() => this.#fetched?.prepared.get(id) ?? this.#find(header, id, seen));
  }

  /**
   * The requests for the set sent so far: read when a token arrives, it tells the fetches sent
   * before it (which may predate its key) from those sent after (see `refetchForUnknownSigner`).
   */
  get requestsSent(): number {
    return this.#requests;
  }

  /**
   * The set is past `cacheMaxAge` but its keys may still verify (`staleIfErrorDuration`): one
   * refetch starts (none while one runs or a failure cools down), and the verification goes on
   * with the keys already known instead of waiting for it. A key set server that hangs would
   * otherwise hold every token for `timeoutDuration` once per `failureCooldownDuration`; a key the
   * server removed is trusted only until the refetch lands, as it was until `cacheMaxAge` passed.
   */
  #revalidate(): void {
    // Its failure is remembered by `#fetch` (the next verifications see it); nobody awaits it here.
    this.#refresh(false).catch(() => undefined);
  }

  async #find(header: JwsHeader, id: string, seen: number): Promise<readonly TKey[]> {
    let selection = await this.#select(header, id);
    if (selection.candidates === undefined) selection = await this.#selectAfterRefetch(header, id, seen, selection);
    const { from, candidates } = selection;
    if (candidates === undefined) throw new Refusal(TOKEN_REFUSALS.unknownKey);
    const keys = this.#prepareUsable(candidates, header.alg);
    // Kept in the map of the set the candidates came from (see `Fetched.prepared`).
    const prepared = from.prepared;
    prepared.set(id, keys);
    keys.then(
      (ready) => prepared.get(id) === keys && prepared.set(id, ready),
      () => prepared.delete(id),
    );
    return keys;
  }

  /**
   * A token's `kid` is not in the set `searched`: refetch now, unless this `kid` was already looked
   * for within `cooldownDuration` (refused at once) or `searched` was fetched after the token
   * arrived (its verifier's first fetch, or the one past `cacheMaxAge`, that the token started
   * itself), and select again. A fetch already under way is
   * joined; when its request was sent before this token arrived, its answer may predate the key
   * (the server rotated while it was on the wire), so a `kid` it lacks is looked for once more,
   * in a fetch sent after the token arrived (one at a time and `minRefetchInterval` apart, as
   * every refetch for an unknown `kid`). A `kid` is remembered as looked for only once a set sent
   * after it arrived has been searched (or it was found). `seen`: the requests sent before it
   * arrived (a refetch the token started itself, past `cacheMaxAge`, is not one of them).
   */
  async #selectAfterRefetch(header: JwsHeader, id: string, seen: number, searched: Selection<TKey>): Promise<Selection<TKey>> {
    const kid = kidOf(header);
    const triedAt = this.#tried.get(kid);
    if (triedAt !== undefined && Date.now() < triedAt + this.timings.cooldownDuration) throw new Refusal(TOKEN_REFUSALS.unknownKey);
    let selection = searched;
    // Two fetches at most: the first may be one under way, sent before the token arrived.
    for (let fetches = 0; fetches < 2 && selection.candidates === undefined && selection.from.request <= seen; fetches++) {
      await this.#refresh(true);
      selection = await this.#select(header, id);
    }
    // Remembered even when the fetch found it: a `kid` in the set is never looked for again while
    // the set is fresh, and one it lacks is then refused at once for `cooldownDuration`.
    if (selection.candidates !== undefined || selection.from.request > seen) this.#remember(kid);
    return selection;
  }

  /**
   * The candidates the step can prepare for `alg`, in order: one it cannot (an RSA key under 2048
   * bits beside a good one, neither with a `kid`) is skipped, not the token refused. Rejects with
   * the first candidate's error when none can be prepared.
   */
  async #prepareUsable(candidates: readonly Candidate[], alg: string): Promise<readonly TKey[]> {
    const prepared = await Promise.allSettled(
      // The step refuses a key it cannot afford (an RSA exponent or modulus too wide) as it
      // prepares it, for a set's keys as for a verifier's own.
      candidates.map(async (candidate) => this.prepare(candidate, alg)),
    );
    const usable = prepared.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    // None at all: the keys the header matches could not even be imported (see `Fetched.several`).
    if (candidates.length === 0) throw new Refusal(TOKEN_REFUSALS.invalid);
    if (usable.length === 0) throw (prepared[0] as PromiseRejectedResult).reason;
    return usable;
  }

  /**
   * The current set's candidates for the header (jose's selection): none when it has no key for
   * it. `id`: the header's `kid` and algorithm, under which the candidates of several keys are
   * kept for the set (see `Fetched.several`).
   */
  async #select(header: JwsHeader, id: string): Promise<Selection<TKey>> {
    const from = this.#fetched;
    if (from === undefined) throw this.#failure!.error;
    const several = from.several.get(id);
    if (several !== undefined) return { from, candidates: await several };
    try {
      return { from, candidates: [(await from.select(header as Parameters<JWTVerifyGetKey>[0], undefined as never)) as CryptoKey] };
    } catch (error) {
      if (error instanceof errors.JWKSMultipleMatchingKeys) {
        // Joined by every token of this header until the set is replaced: its keys are imported once.
        let found = from.several.get(id);
        if (found === undefined) {
          found = firstCandidates(error as unknown as AsyncIterable<CryptoKey>);
          from.several.set(id, found);
        }
        return { from, candidates: await found };
      }
      if (error instanceof errors.JWKSNoMatchingKey) return { from, candidates: undefined };
      throw new Refusal(TOKEN_REFUSALS.invalid); // a key the runtime cannot use for this alg
    }
  }

  /**
   * A token without a `kid` that no candidate verified may be signed by a key the set gained
   * since it was fetched (a rotation): fetch it again, as for an unknown `kid` (the same cooldown
   * and interval: forged tokens cannot make it fetch more often). `true` when it was fetched, so
   * the token's candidates are worth trying once more; `false` for a token with a `kid` (its key
   * is in the set: it simply did not verify) or one looked for within `cooldownDuration`. As for
   * an unknown `kid`, a fetch joined whose request was sent before the token arrived may predate
   * its key: the set is then fetched once more (no token without a `kid` refetches again within
   * `cooldownDuration` after that). `seen`: {@link requestsSent} when the token arrived, so that
   * the fetch it started itself (its verifier's first, or the one past `cacheMaxAge`) counts as
   * sent after it.
   */
  async refetchForUnknownSigner(header: JwsHeader, seen: number): Promise<boolean> {
    if (header.kid !== undefined) return false;
    const triedAt = this.#tried.get(NO_KID);
    if (triedAt !== undefined && Date.now() < triedAt + this.timings.cooldownDuration) return false;
    // The set now held was fetched after the token arrived: its candidates are worth trying (they
    // may not be those the token was checked with), and no fetch would bring a newer key.
    if (this.#fetched!.request > seen) return true;
    await this.#refresh(true);
    if (this.#fetched!.request <= seen) await this.#refresh(true);
    this.#remember(NO_KID);
    return true;
  }

  /** `kid` was looked for in a set sent after it arrived: no new fetch for it within `cooldownDuration`. */
  #remember(kid: string | typeof NO_KID): void {
    this.#tried.delete(kid);
    this.#tried.set(kid, Date.now());
    if (this.#tried.size > MAX_TRIED_KIDS) this.#tried.delete(this.#tried.keys().next().value!);
  }

  /**
   * Fetches the set (one fetch at a time: a caller arriving while one runs, or waits to run, waits
   * for it). Throws the 503 cause only when no usable set is left: none fetched, or the last one
   * staler than `cacheMaxAge + staleIfErrorDuration`. `unknownKid`: the fetch is for a `kid` the
   * set lacks, so it starts no sooner than `minRefetchInterval` after the last such fetch, and a
   * failure answers 503 even with a usable set (the token may well be valid). Otherwise the set is
   * past `cacheMaxAge`: a fetch for an unknown `kid` waiting for `minRefetchInterval` is sent at
   * once (the refetch is due whatever the `kid`s), so that forged `kid`s cannot hold it back.
   */
  async #refresh(unknownKid: boolean): Promise<void> {
    const failure = this.#failure;
    if (this.#pending === undefined && !(failure !== undefined && Date.now() < failure.at + this.timings.failureCooldownDuration)) {
      const wait = unknownKid ? this.#refetchedAt + this.timings.minRefetchInterval - Date.now() : 0;
      this.#pending = this.#fetchAfter(wait, unknownKid).finally(() => {
        this.#pending = undefined;
      });
    } else if (!unknownKid) {
      this.#wake?.();
    }
    await this.#pending;
    const failed = this.#failure;
    if (failed === undefined) return;
    const fetched = this.#fetched;
    const usable = fetched !== undefined && Date.now() < fetched.at + this.timings.cacheMaxAge + this.timings.staleIfErrorDuration;
    if (unknownKid || !usable) throw failed.error;
  }

  /** Fetches after `wait` ms (none when it is 0 or less); `unknownKid`: counted against `minRefetchInterval`. */
  async #fetchAfter(wait: number, unknownKid: boolean): Promise<void> {
    if (wait > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
    if (unknownKid) this.#refetchedAt = Date.now();
    await this.#fetch();
  }

  async #fetch(): Promise<void> {
    const request = ++this.#requests;
    try {
      const response = await fetch(this.url, {
        headers: { accept: 'application/json, application/jwk-set+json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timings.timeoutDuration),
      });
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined); // the connection is not kept busy
        throw new Error(`the key set answered ${response.status}`);
      }
      // Counted in bytes as they arrive, and cancelled past the limit: never buffered whole.
      const body: unknown = JSON.parse(await readBounded(response, MAX_BODY_BYTES, 'the key set'));
      if (!isObject(body) || !Array.isArray(body.keys) || !body.keys.every(isObject)) throw new Error('the answer is not a JSON Web Key Set');
      const keys = (body.keys as Record<string, unknown>[]).map(verifiable);
      this.#fetched = { select: createLocalJWKSet({ keys } as unknown as JSONWebKeySet), at: Date.now(), request, prepared: new Map(), several: new Map() };
      this.#failure = undefined;
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      this.#failure = {
        at: Date.now(),
        error: new VerifierUnavailableError(
          'ERR_JWKS_UNAVAILABLE',
          timedOut ? 'The key set did not answer in time' : 'The key set could not be fetched',
          { cause: error },
        ),
      };
    }
  }
}
