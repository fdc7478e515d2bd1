import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { dpopNonces, dpopProofVerifier, type DPoPNonces, type DPoPProofVerifier, type DPoPReplayStore } from '@trpc-oauth2/core/dpop';
import { loadOrCreatePrivateJson } from '../store/private-files.js';

/**
 * Where the secret the DPoP nonces are derived from is kept: instances sharing `dataDir` share it.
 *
 * @example
 * ```ts
 * const path = join(config.dataDir, DPOP_NONCE_SECRET_FILE); // created 0600 on first start
 * ```
 */
export const DPOP_NONCE_SECRET_FILE = 'dpop-nonce-secret.json';

/**
 * The algorithms the demo accepts DPoP proofs in: what oauth4webapi and oidc-provider use by default.
 *
 * @example
 * ```ts
 * DPOP_ALGORITHMS.includes('ES256'); // true
 * ```
 */
export const DPOP_ALGORITHMS = ['ES256', 'EdDSA', 'Ed25519', 'PS256', 'RS256'] as const;

/**
 * How the demo checks DPoP proofs (RFC 9449): one replay store (the database, shared by every
 * instance), proofs checked against the public origin, and nonces at the token endpoint and on
 * the API derived from a secret every instance shares (so any of them checks a nonce another
 * issued).
 *
 * @example
 * ```ts
 * const dpop: DemoDPoP = await loadDPoP({ dataDir, replay: store.dpopProofs, origin: 'https://api.example.com' });
 * ```
 */
export interface DemoDPoP {
  /** The origin clients call (a proof's `htu` is checked under it, never under the `Host` header). */
  origin: string;
  /** The token endpoint's checker: proofs must carry a current nonce (`use_dpop_nonce` otherwise). */
  tokenProofs: DPoPProofVerifier;
  /** The API's checker: the same replay store and nonces (`use_dpop_nonce` with a `DPoP-Nonce` first, RFC 9449 §9). */
  resourceProofs: DPoPProofVerifier;
  nonces: DPoPNonces;
}

/**
 * Builds the demo's DPoP checkers, loading (or creating, in `dataDir`) the nonce secret.
 *
 * @example
 * ```ts
 * const dpop = await loadDPoP({ dataDir: './data', replay: store.dpopProofs, origin: 'http://127.0.0.1:3000' });
 * ```
 */
export async function loadDPoP(options: { dataDir: string; replay: DPoPReplayStore; origin: string }): Promise<DemoDPoP> {
  const secret = await loadOrCreatePrivateJson(
    join(options.dataDir, DPOP_NONCE_SECRET_FILE),
    (stored) => {
      const value = (stored as { secret?: unknown } | null)?.secret;
      if (typeof value !== 'string' || value.length < 43) throw new TypeError(`${DPOP_NONCE_SECRET_FILE} holds no secret`);
      return Buffer.from(value, 'base64url');
    },
    async () => ({ secret: randomBytes(32).toString('base64url') }),
  );
  const nonces = dpopNonces({ secret: new Uint8Array(secret) });
  const common = { algorithms: DPOP_ALGORITHMS, replay: options.replay };
  return {
    origin: options.origin,
    nonces,
    tokenProofs: dpopProofVerifier({ ...common, nonces }),
    resourceProofs: dpopProofVerifier({ ...common, nonces }),
  };
}
