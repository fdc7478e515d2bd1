import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import type { Database } from './database.js';
import type { OidcPayloadRow } from './schema.js';

// Expired rows are deleted every this many writes, so the table stays bounded without a timer.
const SWEEP_EVERY = 100;

/** Whether PostgreSQL text can hold `value`: not with a NUL byte. */
const storable = (value: string) => !value.includes('\0');

// A UTF-16 surrogate not in a pair: JSON.stringify writes it as an escape (`\ud800`) that a jsonb
// column refuses. A client sends one in a JSON body (a registration's `client_name`).
const UNPAIRED_SURROGATE = /[\ud800-\udfff]/u;

/**
 * `payload` as JSON for a jsonb column, which cannot hold a NUL character nor an unpaired
 * surrogate: one there came from a client (a `state`, a `nonce`, any parameter the provider keeps,
 * a registration's metadata), so the request is refused with 400 `invalid_request` instead of
 * failing on the database.
 */
const jsonOf = (payload: AdapterPayload): string => {
  let nul = false;
  let unpaired = false;
  const json = JSON.stringify(payload, (key, value: unknown) => {
    if (key.includes('\0') || (typeof value === 'string' && value.includes('\0'))) nul = true;
    if (UNPAIRED_SURROGATE.test(key) || (typeof value === 'string' && UNPAIRED_SURROGATE.test(value))) unpaired = true;
    return value;
  });
  if (nul) throw new errors.InvalidRequest('a parameter contains a NUL character');
  if (unpaired) throw new errors.InvalidRequest('a parameter contains an unpaired UTF-16 surrogate');
  return json;
};

/**
 * What the adapter of `ReplayDetection` throws when asked to record a proof (a DPoP proof's or a
 * client assertion's `jti`) it holds unexpired already: another request, here or on another
 * instance, recorded it since this one looked for it. The provider's `ReplayDetection.unique`
 * answers `false` on it (see `createAuthorizationServer`), so the request is refused as a replay.
 *
 * @example
 * ```ts
 * try {
 *   await payloads.adapter('ReplayDetection').upsert(id, payload, 60);
 * } catch (error) {
 *   if (error instanceof AlreadyRecordedError) return false;
 *   throw error;
 * }
 * ```
 */
export class AlreadyRecordedError extends Error {
  constructor() {
    super('this proof is recorded already');
    this.name = 'AlreadyRecordedError';
  }
}

/**
 * The models whose rows are a grant's tokens. An interaction carries the `grantId` of the grant it
 * adds to (the browser's session already holds one for the client), and is no token of it.
 */
const GRANT_TOKEN_MODELS = ['AccessToken', 'RefreshToken', 'AuthorizationCode', 'DeviceCode', 'BackchannelAuthenticationRequest'];

/** What oidc-provider does to a grant whose code or refresh token is replayed: every token of it, and the grant, go. */
const revokeGrant = (db: Database, grantId: string) =>
  db.query(`DELETE FROM oidc_payloads WHERE (grant_id = $1 AND model = ANY($2::text[])) OR (model = 'Grant' AND id = $1)`, [
    grantId,
    GRANT_TOKEN_MODELS,
  ]);

/**
 * The authorization server's storage on the demo's database: oidc-provider's adapter interface
 * over the `oidc_payloads` table. Sessions, interactions, authorization codes, grants and the
 * provider's tokens survive a restart like users and refresh tokens do. An expired row is never
 * returned; a consumed one comes back with `consumed` set, which is how a code redeemed twice
 * is caught. Consuming is one conditional update, so of any number of redemptions of one code or
 * one refresh token racing across processes, exactly one wins; the others find it consumed
 * and revoke its grant, as a redemption coming later would. Likewise a proof (`ReplayDetection`)
 * is recorded by one save only: a second one, racing or later, throws {@link AlreadyRecordedError}.
 *
 * @example
 * ```ts
 * const payloads = new OidcPayloadStore(db);
 * new Provider(issuer, { adapter: (model) => payloads.adapter(model) });
 * ```
 */
export class OidcPayloadStore {
  private writes = 0;

  constructor(private readonly db: Database) {}

  /**
   * The adapter of one model (`Session`, `AuthorizationCode`, `Grant`, …).
   *
   * @example
   * ```ts
   * await payloads.adapter('Session').find(id);
   * ```
   */
  adapter(model: string): Adapter {
    const { db } = this;
    const findWhere = async (column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> => {
      // A client sent it (a code, a token, a client id): PostgreSQL text cannot hold a NUL byte,
      // so no stored row has one, and the query would fail instead of finding nothing.
      if (!storable(value)) return undefined;
      const { rows } = await db.query<Pick<OidcPayloadRow, 'payload' | 'consumed_at'>>(
        `SELECT payload, consumed_at FROM oidc_payloads
         WHERE model = $1 AND ${column} = $2 AND (expires_at IS NULL OR expires_at > now())`,
        [model, value],
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      const consumed = row.consumed_at === null ? {} : { consumed: Math.floor(row.consumed_at.getTime() / 1000) };
      return { ...(row.payload as AdapterPayload), ...consumed };
    };
    // Every model's objects are saved again as they change (a session, a grant), so a save
    // replaces the row; but a proof is recorded once: of saves of one racing here and on other
    // instances, each having found it unrecorded, exactly one inserts it (or takes over an
    // expired row), and the others are refused, as one statement whose row lock orders them.
    const once = model === 'ReplayDetection';
    return {
      upsert: async (id, payload, expiresIn) => {
        const json = jsonOf(payload);
        const { rows } = await db.query(
          `INSERT INTO oidc_payloads (model, id, payload, grant_id, user_code, uid, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::integer IS NULL THEN NULL ELSE now() + make_interval(secs => $7::integer) END)
           ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id,
             user_code = EXCLUDED.user_code, uid = EXCLUDED.uid, expires_at = EXCLUDED.expires_at
           WHERE NOT $8 OR oidc_payloads.expires_at <= now()
           RETURNING 1`,
          [model, id, json, payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null, expiresIn ?? null, once],
        );
        if (++this.writes % SWEEP_EVERY === 0) await this.sweep();
        if (rows.length === 0) throw new AlreadyRecordedError();
      },
      find: (id) => findWhere('id', id),
      findByUid: (uid) => findWhere('uid', uid),
      findByUserCode: (userCode) => findWhere('user_code', userCode),
      consume: async (id) => {
        if (!storable(id)) throw new errors.InvalidGrant('grant not found');
        // oidc-provider reads `consumed` and marks it in two steps; between them another request
        // (here or in another process) may have read it unmarked too. Marking only an unmarked
        // row, in one statement, leaves a single winner: the row lock orders the updates.
        const { rows } = await db.query<{ grant_id: string | null }>(
          `UPDATE oidc_payloads SET consumed_at = now()
           WHERE model = $1 AND id = $2 AND consumed_at IS NULL RETURNING grant_id`,
          [model, id],
        );
        if (rows.length === 1) return;
        const { rows: spent } = await db.query<{ grant_id: string | null }>(
          'SELECT grant_id FROM oidc_payloads WHERE model = $1 AND id = $2',
          [model, id],
        );
        const grantId = spent[0]?.grant_id;
        if (grantId) await revokeGrant(db, grantId);
        throw new errors.InvalidGrant(`${model === 'RefreshToken' ? 'refresh token' : 'grant'} already used`);
      },
      destroy: async (id) => {
        if (!storable(id)) return;
        await db.query('DELETE FROM oidc_payloads WHERE model = $1 AND id = $2', [model, id]);
      },
      revokeByGrantId: async (grantId) => {
        if (!storable(grantId)) return;
        // This model's rows only, as oidc-provider calls it once per model of the grant's tokens:
        // an interaction carrying the grant's id goes on (an account switched at a login page
        // revokes the grant of the account logged out, then resumes that interaction).
        await db.query('DELETE FROM oidc_payloads WHERE model = $1 AND grant_id = $2', [model, grantId]);
      },
    };
  }

  /**
   * Deletes every expired row; returns how many went.
   *
   * @example
   * ```ts
   * await payloads.sweep(); // 0
   * ```
   */
  async sweep(): Promise<number> {
    const { rows } = await this.db.query('DELETE FROM oidc_payloads WHERE expires_at <= now() RETURNING 1');
    return rows.length;
  }
}
