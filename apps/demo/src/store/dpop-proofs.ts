import type { DPoPReplayStore } from '@trpc-oauth2/core/dpop';
import type { Queryable } from './database.js';

/** How many proofs are recorded between two sweeps of the expired ones. */
const SWEEP_EVERY = 500;

/**
 * The DPoP replay store on the demo's database: each proof's key (thumbprint and `jti`) is
 * inserted once; a second insert while the first is unexpired finds the row and is refused. On
 * PostgreSQL every instance shares it, so a proof accepted by one instance is refused by all
 * (RFC 9449 §11.1). Expired rows are swept now and then, so the table holds about one window of proofs.
 *
 * @example
 * ```ts
 * const proofs = dpopProofVerifier({ replay: new DPoPProofStore(db) });
 * ```
 */
export class DPoPProofStore implements DPoPReplayStore {
  private recorded = 0;

  constructor(
    private readonly db: Queryable,
    private readonly now: () => number = () => Date.now() / 1000,
  ) {}

  /**
   * Records `key` until `expiresAt` (seconds); `false` when it is recorded and not expired yet.
   *
   * @example
   * ```ts
   * await store.use('thumbprint.jti', Math.ceil(Date.now() / 1000) + 60); // true, then false
   * ```
   */
  async use(key: string, expiresAt: number): Promise<boolean> {
    const now = this.now();
    // One statement, atomic: a new key is inserted, an expired one taken over, a live one left alone.
    const { rows } = await this.db.query<{ key: string }>(
      `INSERT INTO dpop_proofs (key, expires_at) VALUES ($1, $2)
       ON CONFLICT (key) DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE dpop_proofs.expires_at <= $3
       RETURNING key`,
      [key, Math.ceil(expiresAt), Math.floor(now)],
    );
    if (++this.recorded % SWEEP_EVERY === 0) await this.db.query('DELETE FROM dpop_proofs WHERE expires_at <= $1', [Math.floor(now)]);
    return rows.length === 1;
  }

  /**
   * Whether `key` is recorded and not expired (records nothing; the table has no bound, so that
   * is the one refusal): a token request whose proof was used before is refused before its grant
   * runs, so a replay of a proof already recorded never spends a refresh token. Requests racing
   * with one proof may each run their grant; all but the first to record it are refused after
   * (docs/contract.md#dpop of the library).
   *
   * @example
   * ```ts
   * await store.wouldRefuse('thumbprint.jti'); // true once `use` recorded it, until it expires
   * ```
   */
  async wouldRefuse(key: string): Promise<boolean> {
    const { rows } = await this.db.query<{ key: string }>('SELECT key FROM dpop_proofs WHERE key = $1 AND expires_at > $2', [key, Math.floor(this.now())]);
    return rows.length === 1;
  }
}
