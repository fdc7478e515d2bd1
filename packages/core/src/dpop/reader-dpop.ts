/**
 * DPoP at a resource server (RFC 9449 §7): how a reader that accepts DPoP reads the
 * `Authorization` header, checks the proof of every request (once per HTTP request, or per
 * WebSocket connection, whose opening request carries the one proof), checks that the token is
 * bound to the proof's key, and only then records the proof's `jti`; a bound token sent as
 * `Bearer` is refused. See docs/contract.md#dpop.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { authorizationSchemeParam, isScheme } from '../authorization-scheme.js';
import { readHeader, type HeadersLike } from '../headers.js';
import type { AuthenticationRequirement, ChallengeOptions } from '../errors.js';
import { UNCHECKED_BINDING, uncheckedConfirmation, type Principal, type VerifyRequest } from '../readers/principal.js';
import { requestOnCtx } from '../readers/verify-request.js';
import { clientUrlOf } from '../request-url.js';
import {
  dpopCredentialInUrlError,
  dpopInsufficientScopeError,
  dpopInsufficientUserAuthenticationError,
  dpopInvalidTokenError,
  dpopNotAuthenticatedError,
  invalidDPoPProofError,
  NONCE_REQUIRED,
  useDPoPNonceError,
} from './dpop-errors.js';
import { dpopProofVerifier, replayScopeOf, type DPoPCheck, type DPoPProofVerifier, type DPoPRefusal } from './proof.js';

/** The authentication scheme of RFC 9449 §7.1, compared case-insensitively. */
const DPOP_SCHEME = 'dpop';

/**
 * What a bearer reader's `dpop` option says: whether DPoP is the only way in (`'required'`) or
 * one beside `Bearer` (`'allowed'`), how proofs are checked, and the refusals' factories.
 *
 * @example
 * ```ts
 * const dpop: ReaderDPoPOptions = { mode: 'allowed', proofs: dpopProofVerifier({ algorithms: ['ES256'] }) };
 * ```
 */
export interface ReaderDPoPOptions {
  /** `'required'`: only `Authorization: DPoP …` is read. `'allowed'`: `Bearer` too, for tokens that are not DPoP-bound. */
  mode: 'required' | 'allowed';
  /** The proof checker (default `dpopProofVerifier()`: every pinned algorithm, a memory replay store, no nonces). */
  proofs?: DPoPProofVerifier;
  /** The error for a refused proof; default `invalidDPoPProofError`. */
  makeInvalidDPoPProofError?: (description: string, options: DPoPFactoryOptions) => TRPCError;
  /**
   * The error asking for a nonce; default `useDPoPNonceError`. On a WebSocket connection its
   * options carry the `description` that says a new connection is the remedy.
   */
  makeUseDPoPNonceError?: (nonce: string, options: DPoPFactoryOptions & { readonly description?: string }) => TRPCError;
  /** The error for a token refused on a DPoP request; default `dpopInvalidTokenError`. */
  makeInvalidTokenError?: (description: string, options: DPoPFactoryOptions) => TRPCError;
}

/** What the DPoP factories are handed: the algorithms, and the reader's `resourceMetadata` when it has one. */
type DPoPFactoryOptions = { readonly algorithms: readonly string[] } & ChallengeOptions;

/**
 * What a reader tells its DPoP parts: where its metadata is (every DPoP challenge names it) and
 * the insufficient-scope factory the application gave the reader, if any.
 */
export interface ReaderDPoPChallenges extends ChallengeOptions {
  readonly makeInsufficientScopeError?: ((scopes: readonly string[]) => TRPCError) | undefined;
}

/** A proof accepted for a request: its key's thumbprint, its `jti` not recorded yet. */
export interface AcceptedProof {
  readonly jkt: string;
  /** Records the `jti`, once for the request (or the connection); throws the refusal of a replay. */
  record(): Promise<void>;
}

/** How a DPoP-accepting reader reads one request: the token, and whether it came as DPoP. */
export type DPoPCredential = { readonly token: string; readonly dpop: boolean } | null;

/** The parts of a reader that accepts DPoP, built once from its options. */
export interface ReaderDPoP {
  readonly mode: 'required' | 'allowed';
  readonly algorithms: readonly string[];
  /** The credential of an `Authorization` value: `DPoP <token>`, or (`'allowed'`) what the bearer reading gives. */
  credential(authorization: string | undefined, bearer: (authorization: string | undefined) => string | null): DPoPCredential;
  /**
   * Checks the request's proof for `token`: the key's thumbprint and how to record the proof
   * once the token and its binding are verified, or throws the refusal.
   */
  checkProof(token: string, request: VerifyRequest, ctx: object): Promise<AcceptedProof>;
  /**
   * Checks the principal of a token against how it came: bound to the proof key, or (as `Bearer`)
   * not bound at all. `ctx` is the call's: on a WebSocket connection a refusal only a new
   * connection cures says so.
   */
  checkBinding(principal: Principal, jkt: string | undefined, ctx: object): void;
  /** The error for a token the verifier refused on a DPoP request. */
  invalidToken(description: string): TRPCError;
  /**
   * What the reader answers a request whose proof it refuses, for the OpenAPI document: 401
   * `invalid_dpop_proof`, and `use_dpop_nonce` (with `DPoP-Nonce`) when its checker asks for nonces.
   */
  proofRefusals(): readonly TRPCError[];
  /** The default not-authenticated error, with the challenges of both schemes. */
  notAuthenticated(): TRPCError;
  /** The default refusal of a credential in the URL, challenged in the schemes the reader accepts. */
  credentialInUrl(): TRPCError;
  /** The error for a token sent with DPoP that lacks a scope: the reader's own factory, else `DPoP error="insufficient_scope"`. */
  insufficientScope(scopes: readonly string[]): TRPCError;
  /** The step-up refusal of a token sent with DPoP (RFC 9470 §3 in the DPoP scheme), pointing at the reader's metadata unless told otherwise. */
  insufficientUserAuthentication(requirement: AuthenticationRequirement, options: ChallengeOptions & { description?: string }): TRPCError;
}

/**
 * The proofs checked per request object (`ctx.req`, a Node `IncomingMessage` or a Fetch
 * `Request`) and proof checker. Over WebSockets every call of a connection has the opening
 * request as `ctx.req`, and its one proof: checked for every call, it would be a replay from the
 * second call on and too old a minute in. So it is checked (signature, `htm`/`htu` of the
 * upgrade request, `iat`, `ath`, nonce) and recorded once per connection, and each call checks
 * only its token and the binding to the proof's key (docs/contract.md#dpop). An HTTP batch is
 * one request with one proof too, whichever readers check it: two checkers that record in one
 * replay store record it there once. Entries go with their request object.
 */
const proofsByRequest = new WeakMap<object, Map<DPoPProofVerifier, RequestProof>>();

/** One request's proof check, shared by its calls: for the token it was checked with. */
interface RequestProof {
  readonly token: string;
  readonly checked: Promise<DPoPCheck>;
  /** What the proof is recorded in (see `replayScopeOf`), and its recording, shared by the checkers that record there. */
  readonly scope: object;
  readonly recording: Recording;
}

/** The recording of a request's `jti`, started by the first call whose token and binding were verified. */
interface Recording {
  recorded?: Promise<DPoPRefusal | undefined> | undefined;
}

const NO_REQUEST = 'The DPoP proof cannot be checked: the request it was made for is not on ctx (ctx.req)';

/** What a refusal of a WebSocket connection's proof adds: the proof cannot change on the connection. */
const ON_A_CONNECTION = "; a WebSocket connection has its opening request's proof only: open a new connection with a new proof";

/** Whether `req` opened a WebSocket connection (its `Upgrade` header names `websocket`, RFC 6455 §4.1): every call of the connection has it. */
function isWebSocketUpgrade(req: object): boolean {
  const upgrade = readHeader((req as { headers?: HeadersLike }).headers, 'upgrade');
  return upgrade !== undefined && upgrade.toLowerCase().split(',').some((protocol) => protocol.trim() === 'websocket');
}

/** Whether the call of `ctx` came on a WebSocket connection: its request on ctx is the opening one. */
function onAConnection(ctx: object): boolean {
  const req = requestOnCtx(ctx);
  return req !== undefined && isWebSocketUpgrade(req);
}

/** The description a document shows for a refused proof: the checker's own vary with the cause. */
const INVALID_PROOF = 'The DPoP proof is invalid';
/** What a document shows in place of a nonce, which the server makes per time step. */
const NONCE_EXAMPLE = '<nonce>';

/** The DPoP parts of a reader. */
export function readerDPoP(options: ReaderDPoPOptions, challenges: ReaderDPoPChallenges = {}): ReaderDPoP {
  if (options.mode !== 'required' && options.mode !== 'allowed') throw new TypeError("dpop.mode must be 'required' or 'allowed'");
  const proofs = options.proofs ?? dpopProofVerifier();
  const { algorithms } = proofs;
  const { resourceMetadata } = challenges;
  const factoryOptions: DPoPFactoryOptions = resourceMetadata === undefined ? { algorithms } : { algorithms, resourceMetadata };
  const makeInvalidProof = options.makeInvalidDPoPProofError ?? invalidDPoPProofError;
  const makeUseNonce = options.makeUseDPoPNonceError ?? useDPoPNonceError;
  const makeInvalidToken = options.makeInvalidTokenError ?? dpopInvalidTokenError;
  const insufficientScope = challenges.makeInsufficientScopeError ?? ((scopes: readonly string[]) => dpopInsufficientScopeError(scopes, factoryOptions));
  const { mode } = options;
  /**
   * The error of a refused proof. On a WebSocket connection the proof is its opening request's
   * and cannot change: the description says a new connection is the remedy.
   */
  const refusalError = (refusal: DPoPRefusal, req: object): TRPCError => {
    const connection = isWebSocketUpgrade(req);
    if (refusal.error === 'use_dpop_nonce') {
      return connection ? makeUseNonce(refusal.nonce, { ...factoryOptions, description: `${NONCE_REQUIRED}${ON_A_CONNECTION}` }) : makeUseNonce(refusal.nonce, factoryOptions);
    }
    return makeInvalidProof(connection ? `${refusal.description}${ON_A_CONNECTION}` : refusal.description, factoryOptions);
  };

  const scope = replayScopeOf(proofs);
  /** The proof check of this request for `token`: the one its earlier calls started, or a new one. */
  const requestProof = (token: string, request: VerifyRequest, ctx: object, req: object): RequestProof => {
    const check = (recording: Recording = {}): RequestProof => ({
      token,
      checked: proofs({ method: request.method, url: request.url, proof: request.header('dpop'), accessToken: token, ctx, recordLater: true }),
      scope,
      recording,
    });
    let checks = proofsByRequest.get(req);
    if (checks === undefined) proofsByRequest.set(req, (checks = new Map()));
    const known = checks.get(proofs);
    // Another token with the same proof is checked anew (and refused, by its ath or as a replay).
    if (known !== undefined) return known.token === token ? known : check();
    // Another reader's checker took this request's proof with this token, recording in the same
    // store: this checker checks it by its own rules, and records it only if that one did not.
    let shared: Recording | undefined;
    for (const entry of checks.values()) if (entry.scope === scope && entry.token === token) shared = entry.recording;
    const fresh = check(shared);
    checks.set(proofs, fresh);
    return fresh;
  };

  /** Drops `entry`, and the checks that share its recording, from what `req`'s later calls reuse. */
  const forget = (req: object, entry: RequestProof): void => {
    const checks = proofsByRequest.get(req);
    if (checks?.get(proofs) === entry) for (const [checker, known] of checks) if (known.recording === entry.recording) checks.delete(checker);
  };

  const record = async (entry: RequestProof, checked: Extract<DPoPCheck, { ok: true }>, req: object): Promise<void> => {
    // A checker of the application's own may record as it checks: nothing is left to do.
    if (checked.record === undefined) return;
    const { recording } = entry;
    recording.recorded ??= checked.record();
    let refusal: DPoPRefusal | undefined;
    try {
      refusal = await recording.recorded;
    } catch (error) {
      // A store that failed (a database down) is asked again by the next call.
      recording.recorded = undefined;
      throw error;
    }
    if (refusal === undefined) return;
    // The store refused to record the proof: a replay, or no room now (a full store, its key's
    // share taken), which passes as entries expire. The next call of the request (a WebSocket
    // connection's later call) checks the proof anew, its `iat` included, and asks the store
    // again: within the proof's window a replay is still held and refused, and past it the
    // proof is too old, so only a proof the store had no room for gets through, as it would
    // have if it had come then. Kept, the refusal would refuse the connection for good. Only the
    // checks that share this recording go: another store recorded the proof, and its checkers'
    // calls stay accepted (checked anew, that store would see a replay).
    forget(req, entry);
    throw refusalError(refusal, req);
  };

  return {
    mode,
    algorithms,
    credential(authorization, bearer) {
      if (authorization === undefined) return null;
      const [scheme, token] = authorizationSchemeParam(authorization);
      if (isScheme(scheme, DPOP_SCHEME)) return { token, dpop: true };
      if (mode === 'required') return null;
      const bearerToken = bearer(authorization);
      return bearerToken === null ? null : { token: bearerToken, dpop: false };
    },
    async checkProof(token, request, ctx) {
      // Without the request on ctx (`createCaller`, or a context of headers only) its method and
      // URL are not known, and a proof cannot be checked against them (RFC 9449 §4.3): it is
      // refused, as the token endpoint refuses one, never checked against a URL made up. So is a
      // `req` without its method or URL (`{ req: { headers } }`): the verify request would make
      // them up from the procedure's type and path.
      const req = requestOnCtx(ctx);
      if (req === undefined || typeof req.method !== 'string' || clientUrlOf(req) === undefined) throw makeInvalidProof(NO_REQUEST, factoryOptions);
      const entry = requestProof(token, request, ctx, req);
      const checked = await entry.checked;
      if (!checked.ok) {
        // A nonce asked for is the one current at the call that asks, which only the checker
        // knows (its nonces may be the server's of the request: `ctx`): the connection's next call
        // checks its proof anew rather than repeat a nonce that may have gone stale since. Only
        // this checker's check goes: another's, which may have recorded the proof, stands.
        if (checked.refusal.error === 'use_dpop_nonce' && proofsByRequest.get(req)?.get(proofs) === entry) proofsByRequest.get(req)!.delete(proofs);
        throw refusalError(checked.refusal, req);
      }
      return { jkt: checked.proof.jkt, record: () => record(entry, checked, req) };
    },
    checkBinding(principal, jkt, ctx) {
      const bound = principal.cnf?.jkt;
      // A binding besides the DPoP key's (mTLS's `x5t#S256`) is one nothing here checks.
      if (uncheckedConfirmation(principal.cnf, 'jkt') !== undefined) throw makeInvalidToken(UNCHECKED_BINDING, factoryOptions);
      // A bound token wants a proof by its key, and a connection's only proof is its opening
      // request's (none, for a token sent as Bearer): only a new connection brings that proof.
      const remedy = bound !== undefined && bound !== jkt && onAConnection(ctx) ? ON_A_CONNECTION : '';
      if (jkt === undefined) {
        // No downgrade (RFC 9449 §7.2): a token bound to a key is refused without a proof by it.
        if (bound !== undefined) throw makeInvalidToken(`The access token is DPoP-bound: send it with the DPoP scheme and a proof${remedy}`, factoryOptions);
        return;
      }
      if (bound === undefined) throw makeInvalidToken('The access token is not DPoP-bound', factoryOptions);
      if (bound !== jkt) throw makeInvalidProof(`The DPoP proof key is not the key the access token is bound to${remedy}`, factoryOptions);
    },
    invalidToken: (description) => makeInvalidToken(description, factoryOptions),
    proofRefusals: () => [
      makeInvalidProof(INVALID_PROOF, factoryOptions),
      // The nonce is the server's at the time of the request: the document shows where it goes.
      ...(proofs.nonces === undefined ? [] : [makeUseNonce(NONCE_EXAMPLE, factoryOptions)]),
    ],
    notAuthenticated: () => dpopNotAuthenticatedError(mode, algorithms, factoryOptions),
    credentialInUrl: () => dpopCredentialInUrlError(mode, algorithms, factoryOptions),
    insufficientScope,
    insufficientUserAuthentication: (requirement, { resourceMetadata, description }) =>
      dpopInsufficientUserAuthenticationError(requirement, {
        ...(resourceMetadata === undefined ? factoryOptions : { algorithms, resourceMetadata }),
        ...(description === undefined ? {} : { description }),
      }),
  };
}
