/**
 * DPoP at a resource server (RFC 9449 §7): how a reader that accepts DPoP reads the
 * `Authorization` header, checks the proof on every request, and checks that the token is bound
 * to the proof's key; a bound token sent as `Bearer` is refused. See docs/contract.md#dpop.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { authorizationSchemeParam, isScheme } from '../authorization-scheme.js';
import type { Principal, VerifyRequest } from '../readers/principal.js';
import { dpopInvalidTokenError, dpopNotAuthenticatedError, invalidDPoPProofError, useDPoPNonceError } from './dpop-errors.js';
import { dpopProofVerifier, type DPoPProofVerifier } from './proof.js';

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
  makeInvalidDPoPProofError?: (description: string, options: { readonly algorithms: readonly string[] }) => TRPCError;
  /** The error asking for a nonce; default `useDPoPNonceError`. */
  makeUseDPoPNonceError?: (nonce: string, options: { readonly algorithms: readonly string[] }) => TRPCError;
  /** The error for a token refused on a DPoP request; default `dpopInvalidTokenError`. */
  makeInvalidTokenError?: (description: string, options: { readonly algorithms: readonly string[] }) => TRPCError;
}

/** How a DPoP-accepting reader reads one request: the token, and whether it came as DPoP. */
export type DPoPCredential = { readonly token: string; readonly dpop: boolean } | null;

/** The parts of a reader that accepts DPoP, built once from its options. */
export interface ReaderDPoP {
  readonly mode: 'required' | 'allowed';
  readonly algorithms: readonly string[];
  /** The credential of an `Authorization` value: `DPoP <token>`, or (`'allowed'`) what the bearer reading gives. */
  credential(authorization: string | undefined, bearer: (authorization: string | undefined) => string | null): DPoPCredential;
  /** Checks the request's proof for `token`: the key's thumbprint, or throws the refusal. */
  checkProof(token: string, request: VerifyRequest, ctx: unknown): Promise<string>;
  /** Checks the principal of a token against how it came: bound to the proof key, or (as `Bearer`) not bound at all. */
  checkBinding(principal: Principal, jkt: string | undefined): void;
  /** The error for a token the verifier refused on a DPoP request. */
  invalidToken(description: string): TRPCError;
  /** The default not-authenticated error, with the challenges of both schemes. */
  notAuthenticated(): TRPCError;
}

/** The DPoP parts of a reader. */
export function readerDPoP(options: ReaderDPoPOptions): ReaderDPoP {
  if (options.mode !== 'required' && options.mode !== 'allowed') throw new TypeError("dpop.mode must be 'required' or 'allowed'");
  const proofs = options.proofs ?? dpopProofVerifier();
  const { algorithms } = proofs;
  const makeInvalidProof = options.makeInvalidDPoPProofError ?? invalidDPoPProofError;
  const makeUseNonce = options.makeUseDPoPNonceError ?? useDPoPNonceError;
  const makeInvalidToken = options.makeInvalidTokenError ?? dpopInvalidTokenError;
  const { mode } = options;
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
      const checked = await proofs({ method: request.method, url: request.url, proof: request.header('dpop'), accessToken: token, ctx });
      if (checked.ok) return checked.proof.jkt;
      const { refusal } = checked;
      throw refusal.error === 'use_dpop_nonce' ? makeUseNonce(refusal.nonce, { algorithms }) : makeInvalidProof(refusal.description, { algorithms });
    },
    checkBinding(principal, jkt) {
      const bound = principal.cnf?.jkt;
      if (jkt === undefined) {
        // No downgrade (RFC 9449 §7.2): a token bound to a key is refused without a proof by it.
        if (bound !== undefined) throw makeInvalidToken('The access token is DPoP-bound: send it with the DPoP scheme and a proof', { algorithms });
        return;
      }
      if (bound === undefined) throw makeInvalidToken('The access token is not DPoP-bound', { algorithms });
      if (bound !== jkt) throw makeInvalidProof('The DPoP proof key is not the key the access token is bound to', { algorithms });
    },
    invalidToken: (description) => makeInvalidToken(description, { algorithms }),
    notAuthenticated: () => dpopNotAuthenticatedError(mode, algorithms),
  };
}
