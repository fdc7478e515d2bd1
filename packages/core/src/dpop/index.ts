/**
 * `@trpc-oauth2/core/dpop`: sender-constrained tokens (RFC 9449). The proof verifier the readers'
 * `dpop` option runs, the replay store and server nonces it consults, and the `DPoP` challenges.
 * A reader takes `dpop: { mode: 'required' | 'allowed' }`; everything here is for applications that tune it.
 * @module
 */
export { DPOP_ALGORITHMS, type DPoPAlgorithm } from './algorithms.js';
export {
  dpopProofVerifier,
  accessTokenHash,
  type DPoPProofVerifier,
  type DPoPProofOptions,
  type DPoPRequest,
  type DPoPProof,
  type DPoPCheck,
  type DPoPRefusal,
} from './proof.js';
export { memoryReplayStore, type DPoPReplayStore, type MemoryReplayStoreOptions } from './replay-store.js';
export { dpopNonces, type DPoPNonces, type DPoPNoncesOptions } from './nonces.js';
export {
  dpopChallenge,
  invalidDPoPProofError,
  useDPoPNonceError,
  dpopInvalidTokenError,
  dpopInsufficientScopeError,
  dpopInsufficientUserAuthenticationError,
  dpopNotAuthenticatedError,
  dpopCredentialInUrlError,
  DPOP_NONCE_HEADER,
  type DPoPChallengeOptions,
} from './dpop-errors.js';
export type { ReaderDPoPOptions } from './reader-dpop.js';
