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
   * Forgets `key` as `use` recorded it until `expiresAt` (a row taken over since by a later use
   * stays). The token endpoint records a request's proof before its grant runs and forgets it when
   * the request fails: of requests racing with one proof over every instance, one runs its grant,
   * so the others spend no refresh token (docs/contract.md#dpop of the library).
   *
   * @example
   * ```ts
   * await store.release('thumbprint.jti', expiresAt); // the proof may be recorded again
   * ```
   */
  async release(key: string, expiresAt: number): Promise<void> {
    await this.db.query('DELETE FROM dpop_proofs WHERE key = $1 AND expires_at = $2', [key, Math.ceil(expiresAt)]);
  }

  /**
   * Whether `key` is recorded and not expired (records nothing; the table has no bound, so that
   * is the one refusal). The library's token endpoint asks it only of a store that cannot forget
   * (`release`); this one can, so the endpoint records first.
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
