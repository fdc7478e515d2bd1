/**
 * DPoP proof validation, RFC 9449 §4.3: one `DPoP` header holding a JWT of type `dpop+jwt`,
 * signed with a pinned asymmetric algorithm by the public key in its header, bound to the
 * request's method and URL, fresh, never seen before, carrying the access token's hash and, when
 * the server asks for one, its nonce. See docs/contract.md#dpop.
 * @module
 */
import { LRUCache } from 'lru-cache';
import { base64url, calculateJwkThumbprint, type JWK } from 'jose';
import { compactJws, isBase64urlSegment, jsonSegment } from '../jws/compact.js';
import { signature as runtimeSignature } from '../jws/runtime-signature.js';
import type { CompactJws, SignatureStep } from '../jws/signature/step.js';
import { pinnedAlgorithms, type DPoPAlgorithm } from './algorithms.js';
import type { DPoPNonces } from './nonces.js';
import { memoryReplayStore, type DPoPReplayStore } from './replay-store.js';

/**
 * Whether a JWS `typ` names the DPoP proof type (RFC 9449 §4.2): `dpop+jwt`, or written in full as
 * the media type `application/dpop+jwt`, which RFC 7515 §4.1.9 says a recipient treats as the
 * same; media types compare case-insensitively (RFC 9110 §8.3.1).
 */
function isProofType(typ: unknown): boolean {
  if (typeof typ !== 'string') return false;
  const type = typ.toLowerCase();
  return type === 'dpop+jwt' || type === 'application/dpop+jwt';
}

/** The refusal of a proof the replay store does not record: used before, or no room for it now. */
const alreadyUsed = (): DPoPRefusal => ({ error: 'invalid_dpop_proof', description: 'The DPoP proof was already used' });
/** A proof longer than this is refused before any parsing (an RSA-4096 proof is about 2 500). */
const MAX_PROOF_LENGTH = 8192;
/**
 * The longest `maxAge` or `clockSkew`, in seconds (a day). A proof is held in the replay store
 * until its window ends, in a store other checkers share (the process's, for every checker made
 * without one) and for the longest window among them: a window without end (`Infinity`, or one
 * no clock reaches) would hold every proof of every such checker for good, and a full store
 * would then refuse every client for good (RFC 9449 §11.1 asks for a limited window).
 */
const MAX_WINDOW = 86_400;
/** Longest `jti` remembered (a UUID is 36; 256 leaves room without letting a store fill with megabytes). */
const MAX_JTI_LENGTH = 256;
/**
 * What no `jti` holds: a control character (C0, DEL, C1) or half a surrogate pair. A `jti` is
 * random text (base64url, a UUID), and a replay store keeps it: a database refuses a NUL, and
 * text that is not Unicode would be stored as another's (its halves replaced).
 */
const UNSTORABLE = /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Compact JWS: three base64url parts. A header sent twice reads as two joined by ", ". */
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;
/** JWK members that only a private or secret key has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
/**
 * The RSA keys a proof may name. The client picks the key, and an RSA check costs about the
 * modulus size squared times the exponent's size: a 3072-bit exponent made one check cost 60
 * ES256 checks, before any token is looked at. 2048 to 4096 bits are the sizes in use (8192
 * would cost four times 4096 for no client anyone ships), and 65537 is the exponent every
 * mainstream generator uses (node:crypto, WebCrypto, OpenSSL, the JOSE libraries), the one the
 * DPoP clients send; a larger one buys no security and only costs the server.
 */
const RSA_MODULUS_BITS = { min: 2048, max: 4096 } as const;
/** e = 65537 (F4) as a JWK writes it: base64url of its shortest big-endian bytes, RFC 7518 §6.3.1.2. */
const RSA_EXPONENT = 'AQAB';
/** RFC 3986 §2.3: the characters a percent-encoding of which means the same as the character itself. */
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * The request a proof came with: its method, the URL the client used (the application's public
 * origin, never the `Host` header alone, behind a proxy), the `DPoP` header's value and, at a
 * resource server, the access token it was sent with.
 *
 * @example
 * ```ts
 * const request: DPoPRequest = { method: 'GET', url: 'https://api.example.com/trpc/me', proof: req.headers.dpop, accessToken };
 * ```
 */
export interface DPoPRequest {
  readonly method: string;
  readonly url: string;
  /** The `DPoP` header's value; `undefined` when the request has none. */
  readonly proof: string | undefined;
  /** The access token the proof must carry the hash of (`ath`); absent at a token endpoint. */
  readonly accessToken?: string;
  /**
   * The procedure's context, as a reader hands it on: a verifier written by the application may
   * pick its replay store by it (one per server when several run in one process).
   */
  readonly ctx?: unknown;
  /**
   * Check everything but the replay: the accepted answer's `record()` then records the `jti`
   * (or refuses a replay). A resource server records a proof only once the access token and its
   * binding are verified, so that proofs sent with junk tokens take no room in the replay store
   * (docs/contract.md#dpop).
   */
  readonly recordLater?: boolean;
}

/**
 * An accepted proof: the key that signed it and what it said.
 *
 * @example
 * ```ts
 * if (principal.cnf?.jkt !== proof.jkt) throw invalidDPoPProofError('The proof key is not the token key', { algorithms });
 * ```
 */
export interface DPoPProof {
  /** The JWK SHA-256 thumbprint of the proof key (RFC 7638), what `cnf.jkt` binds a token to. */
  readonly jkt: string;
  /** The public key that signed the proof. */
  readonly jwk: JWK;
  readonly alg: DPoPAlgorithm;
  readonly jti: string;
  readonly iat: number;
  /** The nonce the proof carried, if any. */
  readonly nonce?: string;
}

/**
 * Why a proof was refused: `invalid_dpop_proof`, or `use_dpop_nonce` with the nonce the client
 * must put in its next proof (RFC 9449 §7.1, §8, §9).
 *
 * @example
 * ```ts
 * const refusal: DPoPRefusal = { error: 'use_dpop_nonce', description: 'A DPoP nonce is required', nonce: 'eyJ…' };
 * ```
 */
export type DPoPRefusal =
  | { readonly error: 'invalid_dpop_proof'; readonly description: string }
  | { readonly error: 'use_dpop_nonce'; readonly description: string; readonly nonce: string };

/**
 * What checking a proof gives: the proof, or why it was refused.
 *
 * @example
 * ```ts
 * const checked = await verifyProof(request);
 * if (!checked.ok) throw invalidDPoPProofError(checked.refusal.description, { algorithms });
 * ```
 */
export type DPoPCheck =
  | {
      readonly ok: true;
      readonly proof: DPoPProof;
      /**
       * With `recordLater`: records the proof's `jti` in the replay store, `undefined` when it was
       * fresh, the refusal when it was already used (or the store cannot hold it now). Call it once.
       */
      readonly record?: () => Promise<DPoPRefusal | undefined>;
      /**
       * With `recordLater`, when the replay store can look without recording (`wouldRefuse`): the
       * refusal `record()` would answer now, recording nothing, `undefined` when it would record.
       * A token endpoint asks it before its grant runs, when there is no `release`.
       */
      readonly preview?: () => Promise<DPoPRefusal | undefined>;
      /**
       * With `recordLater`, when the replay store can forget (`release`): forgets what `record()`
       * recorded. A token endpoint records before its grant runs and forgets when the request
       * fails, so that requests racing with one proof run one grant.
       */
      readonly release?: () => Promise<void>;
    }
  | { readonly ok: false; readonly refusal: DPoPRefusal };

/**
 * What {@link dpopProofVerifier} is made of.
 *
 * @example
 * ```ts
 * const options: DPoPProofOptions = { algorithms: ['ES256', 'EdDSA'], maxAge: 60, clockSkew: 10 };
 * ```
 */
export interface DPoPProofOptions {
  /** The algorithms accepted (default: every one of `DPOP_ALGORITHMS`). */
  algorithms?: readonly DPoPAlgorithm[];
  /**
   * How old a proof's `iat` may be, in seconds (default 60, more than 0 and at most 86 400). In a
   * store whose checkers had a shorter window until this one was made, a proof is taken only
   * within the window its store held it for (docs/contract.md#dpop).
   */
  maxAge?: number;
  /** How far in the future a proof's `iat` may be, for clients whose clocks run fast, in seconds (default 10, at most 86 400). */
  clockSkew?: number;
  /**
   * Where `jti` values are remembered (default: one bounded `memoryReplayStore()` that every
   * checker of this process made without a store shares).
   */
  replay?: DPoPReplayStore;
  /** Server nonces: when given, every proof must carry a current one (`use_dpop_nonce` otherwise). */
  nonces?: DPoPNonces;
  /** The clock, in seconds since the epoch (for tests). */
  now?: () => number;
}

/**
 * Checks DPoP proofs. It never throws for a client's proof: a refusal comes back as a
 * {@link DPoPCheck} for the caller to answer in its own way (401 with a challenge at a resource
 * server, 400 at a token endpoint). Also says which algorithms it accepts, for challenges and
 * metadata.
 *
 * @example
 * ```ts
 * const checked = await verifyProof({ method: 'POST', url: 'https://as.example.com/token', proof });
 * ```
 */
export interface DPoPProofVerifier {
  (request: DPoPRequest): Promise<DPoPCheck>;
  readonly algorithms: readonly DPoPAlgorithm[];
  readonly nonces: DPoPNonces | undefined;
}

/**
 * A DPoP proof checker, RFC 9449 §4.3, in this order: exactly one `DPoP` header holding a compact
 * JWT; `typ` `dpop+jwt`; an algorithm from the pinned list; a public `jwk` in the header with no
 * private members (an RSA one of 2048 to 4096 bits with e = 65537); a valid signature by that
 * key; `htm` equal to the method; `htu` without userinfo and equal to the request URL without
 * query and fragment (both normalized, percent-encoding included); `iat` within `maxAge` in the
 * past and `clockSkew` in the future; a `jti`; `ath` equal to base64url(SHA-256(access token))
 * when a token is presented; a current nonce when `nonces` is set; and last, a `jti` never seen
 * within its window (recorded at once, or by the answer's `record()` given `recordLater`).
 *
 * @example
 * ```ts
 * const verifyProof = dpopProofVerifier({ algorithms: ['ES256'] });
 * const checked = await verifyProof({ method: req.method, url: publicUrl, proof: req.headers.get('dpop') ?? undefined, accessToken });
 * if (checked.ok) console.log(checked.proof.jkt);
 * ```
 */
export function dpopProofVerifier(options: DPoPProofOptions = {}): DPoPProofVerifier {
  return dpopProofVerifierOn(runtimeSignature, options);
}

/**
 * {@link dpopProofVerifier} with the signature checked by `step`: `node:crypto` on Node (a key
 * prepared once, each signature checked synchronously), WebCrypto elsewhere; the step the
 * `#signature` import condition picked by default. Every other check, and every refusal, is the
 * same code for both. Not on the package's entries: tests run the hostile proofs on each step.
 *
 * @example
 * ```ts
 * const verifyProof = dpopProofVerifierOn(webSignature, { algorithms: ['ES256'] });
 * ```
 */
export function dpopProofVerifierOn(step: SignatureStep, options: DPoPProofOptions = {}): DPoPProofVerifier {
  const algorithms = pinnedAlgorithms(options.algorithms);
  const maxAge = options.maxAge ?? 60;
  const clockSkew = options.clockSkew ?? 10;
  if (!(maxAge > 0 && maxAge <= MAX_WINDOW) || !(clockSkew >= 0 && clockSkew <= MAX_WINDOW)) {
    throw new TypeError(`dpopProofVerifier: \`maxAge\` must be positive and \`clockSkew\` not negative, both at most ${MAX_WINDOW} seconds`);
  }
  const replay = options.replay ?? (processReplayStore ??= memoryReplayStore());
  const now = options.now ?? (() => Date.now() / 1000);
  const held = holdFor(replay, maxAge, clockSkew, now());
  const { nonces } = options;

  const refuse = (description: string): DPoPCheck => ({ ok: false, refusal: { error: 'invalid_dpop_proof', description } });
  const keys = new ProofKeys(step);
  const remember = async (key: string, expiresAt: number, holder: string): Promise<DPoPRefusal | undefined> =>
    (await replay.use(key, expiresAt, holder)) ? undefined : alreadyUsed();

  const verify = async (request: DPoPRequest): Promise<DPoPCheck> => {
    const { proof } = request;
    if (proof === undefined || proof === '') return refuse('A DPoP proof is required');
    if (proof.length > MAX_PROOF_LENGTH) return refuse('The DPoP proof is too long');
    if (!COMPACT_JWS.test(proof)) return refuse(proof.includes(',') ? 'Exactly one DPoP header is allowed' : 'The DPoP proof is not a compact JWT');

    // The pattern above leaves exactly three non-empty segments.
    const jws = compactJws(proof)!;
    const header = isBase64urlSegment(jws.protectedHeader) ? jsonSegment(step, jws.protectedHeader) : undefined;
    if (header === undefined) return refuse('The DPoP proof header is not valid JSON');
    if (!isProofType(header.typ)) return refuse('The DPoP proof type must be dpop+jwt');
    if (typeof header.alg !== 'string' || !(algorithms as readonly string[]).includes(header.alg)) {
      return refuse('The DPoP proof algorithm is not accepted');
    }
    const jwk = header.jwk;
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return refuse('The DPoP proof header has no public jwk');
    if (PRIVATE_MEMBERS.some((member) => member in jwk)) return refuse('The DPoP proof jwk must be a public key');
    // Before the key is prepared or any signature checked: the cost of an RSA check is the client's choice.
    if (!affordableKey(jwk as JWK)) return refuse('The DPoP proof RSA key must have a 2048 to 4096-bit modulus and the exponent 65537');

    const time = now();
    let payload: Record<string, unknown> | undefined;
    let known: ProofKey | undefined;
    try {
      const ready = keys.of(jwk as JWK, header.alg);
      known = ready instanceof Promise ? await ready : ready;
      const signed = signedClaims(step, header, known.key, jws);
      payload = signed instanceof Promise ? await signed : signed;
    } catch {
      // The key cannot verify this algorithm (another type, curve or size, or no key at all).
      payload = undefined;
    }
    if (known === undefined || payload === undefined || !inValidityWindow(payload, time)) return refuse('The DPoP proof signature or key is invalid');

    if (payload.htm !== request.method) return refuse('The DPoP proof htm does not match the request method');
    if (typeof payload.htu !== 'string') return refuse('The DPoP proof htu does not match the request URL');
    if (hasUserinfo(payload.htu)) return refuse('The DPoP proof htu must not carry userinfo');
    if (!sameTarget(payload.htu, request.url)) return refuse('The DPoP proof htu does not match the request URL');
    const { iat } = payload;
    if (typeof iat !== 'number' || !Number.isFinite(iat)) return refuse('The DPoP proof has no iat');
    // Past the window its store has held such a proof for since it could first be accepted, it
    // may have been accepted and forgotten: a checker whose window is longer came later (see `holdFor`).
    if (time - iat > maxAge || time - iat > held.assured(iat)) return refuse('The DPoP proof is too old');
    if (iat - time > clockSkew) return refuse('The DPoP proof is issued in the future');
    const { jti } = payload;
    if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH || UNSTORABLE.test(jti)) return refuse('The DPoP proof has no valid jti');
    if (request.accessToken !== undefined) {
      if (typeof payload.ath !== 'string' || payload.ath !== (await accessTokenHash(request.accessToken))) {
        return refuse('The DPoP proof ath does not match the access token');
      }
    }
    const nonce = payload.nonce;
    if (nonce !== undefined && typeof nonce !== 'string') return refuse('The DPoP proof nonce is not a string');
    if (nonces !== undefined && (nonce === undefined || !(await nonces.check(nonce)))) {
      const fresh = await nonces.current();
      return { ok: false, refusal: { error: 'use_dpop_nonce', description: nonce === undefined ? 'A DPoP nonce is required' : 'The DPoP nonce is stale', nonce: fresh } };
    }

    const { jkt } = known;
    const accepted: DPoPProof = { jkt, jwk: jwk as JWK, alg: header.alg as DPoPAlgorithm, jti, iat, ...(nonce === undefined ? {} : { nonce }) };
    // The proof stays acceptable through iat + maxAge, so it is remembered until just after; in a
    // store other checkers share, for the longest window among them (see `holdFor`).
    const replayKey = `${jkt}.${jti}`;
    const expiresAt = Math.floor(iat + held.longest) + 1;
    if (request.recordLater === true) {
      const { wouldRefuse, release } = replay;
      return {
        ok: true,
        proof: accepted,
        record: () => remember(replayKey, expiresAt, jkt),
        ...(wouldRefuse === undefined ? {} : { preview: async () => ((await wouldRefuse.call(replay, replayKey, jkt)) ? alreadyUsed() : undefined) }),
        ...(release === undefined ? {} : { release: async () => void (await release.call(replay, replayKey, expiresAt, jkt)) }),
      };
    }
    const replayed = await remember(replayKey, expiresAt, jkt);
    return replayed === undefined ? { ok: true, proof: accepted } : { ok: false, refusal: replayed };
  };
  return Object.assign(verify, { algorithms, nonces, [REPLAY_STORE]: replay });
}

/**
 * The replay store of the checkers made without one, one for the process (made when first
 * needed). A store per checker would protect nothing where an application makes a checker per
 * request (a token endpoint's `dpop` given as a function of ctx that calls `dpopProofVerifier()`
 * each time, say, to pick the origin per tenant): every proof would be the first its store saw,
 * and a replay would be accepted. Shared, a proof any of them accepted is refused by all of them
 * within its window (docs/contract.md#dpop).
 */
let processReplayStore: DPoPReplayStore | undefined;

/**
 * How long each replay store keeps a proof, in seconds past its `iat`: the longest `maxAge` of the
 * checkers made with it. A proof one checker recorded must stay held for as long as any other
 * checker of the same store would accept it: an HTTP batch records its one proof once for every
 * reader whose checker shares a store, and a checker with a shorter window would otherwise let
 * the proof be forgotten while a longer one still takes it, so that the batch replayed past the
 * short window reached the calls behind the long one (docs/contract.md#dpop).
 */
const windows = new WeakMap<DPoPReplayStore, StoreWindows>();

/**
 * The windows of one replay store's checkers. The longest only grows, and a proof is held for the
 * one in force when it is recorded; a proof recorded before a longer-window checker was made was
 * held for less, and that checker must not take it once it was forgotten. So each growth is kept
 * with when it happened: a proof with a given `iat` was first acceptable at `iat - skew` (the
 * widest `clockSkew` of the store's checkers), and whenever it was recorded, it was held at least
 * for the window in force then. A checker accepts a proof only within that window.
 */
class StoreWindows {
  /** The windows the store has held proofs for, each from when it began (`since`), growing. */
  readonly #growths: { since: number; window: number }[];
  /** The widest `clockSkew` among the store's checkers: how early a proof can be recorded before its `iat`. */
  #skew: number;

  constructor(window: number, skew: number) {
    // Nothing is recorded before the first checker exists: its window holds for every earlier time.
    this.#growths = [{ since: Number.NEGATIVE_INFINITY, window }];
    this.#skew = skew;
  }

  /** The window every proof recorded from now on is held for, past its `iat`. */
  get longest(): number {
    return this.#growths.at(-1)!.window;
  }

  /** Records a checker with `window` and `skew` made at `time`. */
  add(window: number, skew: number, time: number): void {
    this.#skew = Math.max(this.#skew, skew);
    if (window <= this.longest) return;
    this.#growths.push({ since: time, window });
    // A proof is asked about at most `maxAge` past its `iat`, recorded at most `clockSkew` before
    // it, each at most a day: a growth older than two days decides nothing (the count stays
    // bounded by the growths within two days, each a longer window than the one before).
    while (this.#growths.length > 1 && this.#growths[1]!.since <= time - 2 * MAX_WINDOW) {
      this.#growths.shift();
      this.#growths[0]!.since = Number.NEGATIVE_INFINITY;
    }
  }

  /** How long past `iat` the store holds a proof with that `iat`, whenever it was recorded. */
  assured(iat: number): number {
    const first = iat - this.#skew;
    let window = this.#growths[0]!.window;
    for (const growth of this.#growths) {
      // A growth at the very instant the proof became acceptable may have come after it was recorded.
      if (growth.since >= first) break;
      window = growth.window;
    }
    return window;
  }
}

/** Makes `replay` keep every proof for `maxAge` at least, whichever of its checkers records it. */
function holdFor(replay: DPoPReplayStore, maxAge: number, clockSkew: number, time: number): StoreWindows {
  const held = windows.get(replay);
  if (held === undefined) {
    const first = new StoreWindows(maxAge, clockSkew);
    windows.set(replay, first);
    return first;
  }
  held.add(maxAge, clockSkew, time);
  return held;
}

/**
 * Where a checker made by {@link dpopProofVerifier} records its `jti`s (not exported from the
 * package): readers whose checkers share a store record a request's proof in it once.
 */
export const REPLAY_STORE: unique symbol = Symbol('trpc-oauth2.dpop-replay-store') as never;

/** What a checker records in: its replay store, or, for a checker of the application's own, the checker itself. */
export const replayScopeOf = (proofs: DPoPProofVerifier): object => (proofs as { [REPLAY_STORE]?: object })[REPLAY_STORE] ?? proofs;

/**
 * The `ath` of an access token: base64url(SHA-256(token)), RFC 9449 §4.2.
 *
 * @example
 * ```ts
 * await accessTokenHash('Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU'); // 'fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo'
 * ```
 */
export async function accessTokenHash(token: string): Promise<string> {
  if (nodeHash !== undefined) return nodeHash('sha256', token, 'base64url');
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))));
}

/**
 * Node's one-shot `crypto.hash`, synchronous, where the runtime has it (`process.getBuiltinModule`
 * reaches it without an import, so this module still loads on runtimes without `node:crypto`):
 * WebCrypto's digest goes through a worker job, which costs more than the hash of a token.
 */
const nodeHash = (() => {
  const builtin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto') as
    | { hash?: (algorithm: string, data: string, encoding: 'base64url') => string }
    | undefined;
  return typeof builtin?.hash === 'function' ? builtin.hash : undefined;
})();

/**
 * Whether a proof's `htu` names the request's URL: both parsed (which lower-cases scheme and
 * host, drops a default port and resolves dot segments, RFC 3986 §6.2.2.1, §6.2.2.3 and
 * §6.2.3), their paths' percent-encodings normalized (RFC 3986 §6.2.2.1-2, which RFC 9449 §4.3
 * asks for: WHATWG URL parsing leaves them as written) and compared without query and fragment
 * (RFC 9449 §4.3 check 9).
 */
function sameTarget(htu: string, url: string): boolean {
  const claimed = parseUrl(htu);
  const actual = parseUrl(url);
  if (claimed === undefined || actual === undefined) return false;
  return claimed.protocol === actual.protocol && claimed.host === actual.host && normalizedPath(claimed.pathname) === normalizedPath(actual.pathname);
}

/**
 * Whether `htu` carries userinfo (`https://user@host/…`): no request target does, and RFC 9110
 * §4.2.4 forbids it in an http(s) URI, so such a proof names no request (and could mislead a
 * reader of logs about the host). An empty one (`https://@host/`, `https://:@host/`) is userinfo
 * too, its `@` the delimiter RFC 9110 forbids with it, though the URL parser drops it: the `@` is
 * looked for in the authority as the parser reads it (tabs and newlines removed, `\` a `/`).
 */
function hasUserinfo(htu: string): boolean {
  const url = parseUrl(htu);
  if (url === undefined) return false;
  if (url.username !== '' || url.password !== '') return true;
  const authority = AUTHORITY.exec(htu.replace(/[\t\n\r]/g, '').trim())?.[1] ?? '';
  return authority.includes('@');
}

/** The authority of an absolute URL as written: after the scheme and its slashes, up to the path, query or fragment. */
const AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:[\\/]*([^\\/?#]*)/;

/**
 * RFC 3986 §6.2.2.1-2 on a parsed path: every percent-encoding's hex digits upper-cased, and the
 * encodings of unreserved characters decoded (`/a%7eb` and `/a~b`, `/%61pi` and `/api` are one path).
 */
function normalizedPath(path: string): string {
  if (!path.includes('%')) return path;
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(character) ? character : `%${hex.toUpperCase()}`;
  });
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * The claims of a proof whose signature `key` verifies, as jose's `jwtVerify` read them: no `crit`
 * (no extension is understood here, and an unencoded payload is never a JWT, RFC 7797 §7),
 * base64url segments, the signature under the header's `alg` (the one the key was prepared for),
 * and a payload that is a JSON object in UTF-8. `undefined` when any of these fails.
 */
function signedClaims(
  step: SignatureStep,
  header: Record<string, unknown>,
  key: unknown,
  jws: CompactJws,
): Record<string, unknown> | undefined | Promise<Record<string, unknown> | undefined> {
  if (header.crit !== undefined || !isBase64urlSegment(jws.payload) || !isBase64urlSegment(jws.signature)) return undefined;
  const claims = (valid: boolean) => (valid ? jsonSegment(step, jws.payload) : undefined);
  // On node:crypto the signature is checked here, synchronously: no job is queued per proof.
  const verified = step.verify(header.alg as string, key, jws);
  return verified instanceof Promise ? verified.then(claims) : claims(verified);
}

/**
 * The time claims jose's `jwtVerify` checked, which a proof keeps to: `iat`, `nbf` and `exp` are
 * numbers when present, and the proof is neither used before its `nbf` nor from its `exp` on, in
 * whole seconds. A clock that gives no finite time accepts nothing.
 */
function inValidityWindow(payload: Record<string, unknown>, time: number): boolean {
  const second = Math.floor(time);
  if (!Number.isFinite(second)) return false;
  const { iat, nbf, exp } = payload;
  if (iat !== undefined && typeof iat !== 'number') return false;
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > second)) return false;
  if (exp !== undefined && (typeof exp !== 'number' || exp <= second)) return false;
  return true;
}

/**
 * Whether checking a signature by `jwk` costs what a client's key costs: an RSA key with a
 * modulus of {@link RSA_MODULUS_BITS} and the exponent 65537, or any other key type (their
 * sizes are fixed by the curve, and the step refuses what does not fit `alg`).
 */
function affordableKey(jwk: JWK): boolean {
  if (jwk.kty !== 'RSA') return true;
  if (jwk.e !== RSA_EXPONENT || typeof jwk.n !== 'string' || !isBase64urlSegment(jwk.n)) return false;
  const bits = modulusBits(jwk.n);
  return bits >= RSA_MODULUS_BITS.min && bits <= RSA_MODULUS_BITS.max;
}

/** The bit length of the unsigned big-endian number a base64url segment holds (leading zero bytes ignored). */
function modulusBits(n: string): number {
  let bytes: Uint8Array;
  try {
    bytes = base64url.decode(n);
  } catch {
    return 0;
  }
  let first = 0;
  while (first < bytes.length && bytes[first] === 0) first++;
  if (first === bytes.length) return 0;
  return (bytes.length - first - 1) * 8 + (32 - Math.clz32(bytes[first]!));
}

/** A proof key prepared once by the signature step, with its RFC 7638 thumbprint. */
interface ProofKey {
  readonly key: unknown;
  readonly jkt: string;
}

/** How many proof keys a verifier keeps imported: a client signs every proof with one key. */
const MAX_PROOF_KEYS = 1_000;

/**
 * The proof keys a verifier has prepared, by the header's whole `jwk` and `alg`: a client signs
 * all its proofs with one key, and preparing it (with its thumbprint) costs more than checking a
 * signature. The least recently used goes first past {@link MAX_PROOF_KEYS}. Only the JSON the
 * proof carried is the lookup key, so a key is never used for a `jwk` other than its own, nor for
 * an `alg` other than the one it was prepared for.
 */
export class ProofKeys {
  // lru-cache moves a hit to the front without touching its index: a Map's delete and set on
  // every proof rehashed it, garbage outside the young generation on every request.
  readonly #keys = new LRUCache<string, ProofKey | Promise<ProofKey>>({ max: MAX_PROOF_KEYS });

  constructor(private readonly step: SignatureStep) {}

  of(jwk: JWK, alg: string): ProofKey | Promise<ProofKey> {
    const id = `${alg}.${canonicalJson(jwk)}`;
    const known = this.#keys.get(id);
    if (known !== undefined) return known;
    const pending = prepareProofKey(this.step, jwk, alg);
    this.#keys.set(id, pending);
    // Once ready, the key is there without a promise to await; a key that does not prepare is
    // not remembered: the next proof with it is refused again.
    pending.then(
      (ready) => this.#keys.peek(id) === pending && this.#keys.set(id, ready),
      () => this.#keys.peek(id) === pending && this.#keys.delete(id),
    );
    return pending;
  }
}

/**
 * The step refuses a key that does not fit `alg` (another type or curve, RSA under 2048 bits, a
 * symmetric `oct` key), here on node:crypto, when it verifies on WebCrypto.
 */
async function prepareProofKey(step: SignatureStep, jwk: JWK, alg: string): Promise<ProofKey> {
  const key = await step.prepare(jwk, alg);
  return { key, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

/** JSON with object members in sorted order, so that one key is one lookup whatever its member order. */
function canonicalJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record)
    .sort()
    .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`)
    .join(',')}}`;
}
