import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Database, Queryable } from './database.js';
import type { RefreshTokenRow } from './schema.js';

/**
 * The grant a refresh token stands for.
 *
 * @example
 * ```ts
 * const grant: RefreshGrant = { username: 'alice', clientId: null, scopes: ['me', 'items'] };
 * ```
 */
export interface RefreshGrant {
  username: string;
  clientId: string | null;
  scopes: string[];
  /** The DPoP key the token is bound to (RFC 9449 §5): every use must come with a proof by it. */
  dpopJkt?: string | null;
}

/**
 * How a rotation ended: the grant and its successor token, or why the token was refused.
 * `reused` means the token had been used before: its whole family is now revoked.
 *
 * @example
 * ```ts
 * const result: RotationResult = { ok: false, reason: 'reused' };
 * ```
 */
export type RotationResult =
  | { ok: true; grant: RefreshGrant; refreshToken: string }
  | { ok: false; reason: 'unknown' | 'expired' | 'revoked' | 'reused' | 'wrong_client' | 'scope_exceeded' | 'wrong_key' };

type TokenRow = Omit<RefreshTokenRow, 'token_hash' | 'created_at'>;

/**
 * How many tokens a store issues (logins and rotations alike) between two of its sweeps (see
 * {@link RefreshTokenStore.sweep}), so the table stays bounded without a timer.
 *
 * @example
 * ```ts
 * for (let i = 0; i < REFRESH_TOKEN_SWEEP_EVERY; i++) await store.issue(grant); // the last one sweeps
 * ```
 */
export const REFRESH_TOKEN_SWEEP_EVERY = 100;

/**
 * How long a family lives at most, from its first token (the login), when the store is told
 * nothing else: 90 days, however often it rotates (see {@link RefreshTokenStore}).
 *
 * @example
 * ```ts
 * new RefreshTokenStore(db, 30 * 24 * 3600, REFRESH_TOKEN_MAX_LIFETIME_SECONDS);
 * ```
 */
export const REFRESH_TOKEN_MAX_LIFETIME_SECONDS = 90 * 24 * 60 * 60;

// The most families one sweep deletes: each is locked until it commits, and a lock takes room
// in the server's shared lock table. Fewer than a sweep's tokens can start, so a backlog drains.
const SWEEP_FAMILIES = 100;

// 256 random bits: unguessable, so a fast hash is enough to keep stored tokens unusable.
const newToken = () => randomBytes(32).toString('base64url');
const digest = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Opaque refresh tokens, stored only as SHA-256 digests. Each use rotates the token: the old one
 * is marked used and a successor in the same family is issued. Presenting a used token again
 * means it leaked (or a client misbehaves), so the whole family is revoked (OAuth 2.0 Security
 * BCP, RFC 9700 §4.14.2). A family lives at most `maxLifetimeSeconds` from its first token's
 * `created_at` (the login), however often it rotates: a token expires `ttlSeconds` after it is
 * issued or at the family's end, whichever comes first (so with a lifetime shorter than the TTL,
 * the lifetime wins), and no token of a family past its end is rotated, whatever its own expiry
 * (one issued before, under a longer lifetime). A family is deleted once none of its tokens can
 * be used again (see {@link RefreshTokenStore.sweep}): without the lifetime, a family refreshed
 * without end would keep a spent row per rotation for ever.
 *
 * @example
 * ```ts
 * const store = new RefreshTokenStore(db, 30 * 24 * 3600, 90 * 24 * 3600);
 * const token = await store.issue({ username: 'alice', clientId: null, scopes: ['me'] });
 * const result = await store.rotate(token, null);
 * ```
 */
export class RefreshTokenStore {
  private issued = 0;

  constructor(
    private readonly db: Database,
    private readonly ttlSeconds: number,
    private readonly maxLifetimeSeconds: number = REFRESH_TOKEN_MAX_LIFETIME_SECONDS,
  ) {}

  /**
   * A new token starting a new family.
   *
   * @example
   * ```ts
   * const token = await store.issue({ username: 'alice', clientId: 'demo-cli', scopes: ['me'] });
   * ```
   */
  async issue(grant: RefreshGrant): Promise<string> {
    const token = await this.insert(this.db, grant, randomUUID());
    await this.counted();
    return token;
  }

  /**
   * Uses `token` once: on success it is spent and its successor (same scopes, same family)
   * returned. A token issued to a client may only be used by that client, and `requestedScopes`
   * (when not empty) must lie within the original grant (RFC 6749 §6); a refused request leaves
   * an unused token unspent. A token of a family in which any token is revoked is refused, and
   * one of a family past its maximum lifetime is `expired`; the successor expires at the family's
   * end if that comes before its TTL runs out. The family's start is the least `created_at` of
   * its rows, read with the revocation check in one pass over them (the `family_id` index) while
   * the lock is held: a family keeps its first row until it is deleted whole.
   * Everything happens in one transaction holding the family's lock (see {@link lockFamily}),
   * so two concurrent uses cannot both succeed, and a concurrent revocation cannot miss the
   * successor.
   *
   * @example
   * ```ts
   * const result = await store.rotate(token, clientId, []);
   * if (!result.ok) throw tokenError('invalid_grant', 'Invalid refresh token');
   * ```
   */
  async rotate(token: string, clientId: string | null, requestedScopes: readonly string[], dpopJkt: string | null = null): Promise<RotationResult> {
    const tokenHash = digest(token);
    const result = await this.db.transaction(async (tx): Promise<RotationResult> => {
      const familyId = await lockFamilyOf(tx, tokenHash);
      if (familyId === undefined) return { ok: false, reason: 'unknown' };
      // The family's end is cut to the millisecond, which a Date holds exactly: the successor's
      // expiry, bounded by it, never passes the end by the microseconds a Date would drop.
      const { rows } = await tx.query<TokenRow & { family_revoked: boolean; family_ends_at: Date; family_ended: boolean }>(
        `SELECT token.family_id, token.username, token.client_id, token.scope, token.expires_at, token.used_at,
                token.revoked_at, token.dpop_jkt, family.revoked AS family_revoked,
                family.ends_at AS family_ends_at, family.ends_at <= now() AS family_ended
           FROM refresh_tokens AS token,
                (SELECT coalesce(bool_or(revoked_at IS NOT NULL), false) AS revoked,
                        date_trunc('milliseconds', min(created_at) + make_interval(secs => $3)) AS ends_at
                   FROM refresh_tokens WHERE family_id = $2) AS family
          WHERE token.token_hash = $1 FOR UPDATE OF token`,
        [tokenHash, familyId, this.maxLifetimeSeconds],
      );
      const row = rows[0];
      // Gone since: its user was deleted.
      if (row === undefined) return { ok: false, reason: 'unknown' };
      if (row.revoked_at !== null) return { ok: false, reason: 'revoked' };
      // A family is revoked whole: a token left out of it (as one issued by a rotation racing a
      // revocation could be, before families were locked) is revoked now, with the rest.
      if (row.family_revoked) {
        await revokeFamily(tx, familyId);
        return { ok: false, reason: 'revoked' };
      }
      if (row.used_at !== null) {
        await revokeFamily(tx, familyId);
        return { ok: false, reason: 'reused' };
      }
      if (row.client_id !== clientId) return { ok: false, reason: 'wrong_client' };
      // A bound token is used only with a proof by its key (RFC 9449 §5); an unbound one stays unbound.
      if (row.dpop_jkt !== null && row.dpop_jkt !== dpopJkt) return { ok: false, reason: 'wrong_key' };
      if (row.expires_at.getTime() <= Date.now()) return { ok: false, reason: 'expired' };
      // Past the family's maximum lifetime: a token issued before it was this short may outlive it.
      if (row.family_ended) return { ok: false, reason: 'expired' };
      const grant: RefreshGrant = {
        username: row.username,
        clientId: row.client_id,
        scopes: row.scope.split(' ').filter(Boolean),
        dpopJkt: row.dpop_jkt,
      };
      if (!requestedScopes.every((scope) => grant.scopes.includes(scope))) return { ok: false, reason: 'scope_exceeded' };
      await tx.query('UPDATE refresh_tokens SET used_at = now() WHERE token_hash = $1', [tokenHash]);
      return { ok: true, grant, refreshToken: await this.insert(tx, grant, familyId, row.family_ends_at) };
    });
    if (result.ok) await this.counted();
    return result;
  }

  /**
   * Revokes the family of `token` (RFC 7009), when it is a refresh token issued to `clientId`;
   * an unknown token, or another client's, is left alone (the revocation endpoint answers 200
   * either way, and tells nothing about tokens the client does not hold). It holds the family's
   * lock (see {@link lockFamily}): a rotation of the family finishes first, and its successor is
   * revoked too, or starts after, and is refused.
   *
   * @example
   * ```ts
   * await store.revoke(refreshToken, 'demo-cli');
   * ```
   */
  async revoke(token: string, clientId: string | null): Promise<void> {
    const { rows } = await this.db.query<Pick<TokenRow, 'family_id' | 'client_id'>>(
      'SELECT family_id, client_id FROM refresh_tokens WHERE token_hash = $1',
      [digest(token)],
    );
    const row = rows[0];
    if (row === undefined || row.client_id !== clientId) return;
    await this.db.transaction(async (tx) => {
      await lockFamily(tx, row.family_id);
      await revokeFamily(tx, row.family_id);
    });
  }

  /**
   * Deletes families none of whose tokens can be used again: every one expired or revoked (a
   * logout, a reuse), or the family past its maximum lifetime; returns how many rows went. A
   * family refreshed without end is deleted too, once its lifetime is over. A presented token of
   * theirs was refused before and is refused now, as unknown. A family with a live token keeps every row,
   * its spent tokens too, however long ago they expired: a spent token presented again means it
   * was stolen, and must still revoke the family (RFC 9700 §4.14.2) while the family lives.
   * A family is deleted under its lock (see {@link lockFamily}), and only when found dead once
   * more under it: a rotation of it under way (of a token about to expire) holds the lock, so
   * the family is skipped, never waited for, and left to a later sweep; one that committed since
   * the family was first found dead left a live successor, which keeps it; one coming after
   * finds it gone.
   *
   * @example
   * ```ts
   * await store.sweep(); // 0
   * ```
   */
  async sweep(): Promise<number> {
    return this.db.transaction(async (tx) => {
      const { rows: dead } = await tx.query<Pick<TokenRow, 'family_id'>>(
        `SELECT family_id FROM (
           SELECT family_id FROM refresh_tokens GROUP BY family_id HAVING ${familyDead('$3')} LIMIT $2
         ) AS dead
         WHERE pg_try_advisory_xact_lock($1, hashtext(family_id::text))`,
        [FAMILY_LOCK_CLASS, SWEEP_FAMILIES, this.maxLifetimeSeconds],
      );
      if (dead.length === 0) return 0;
      // Checked again now that they are locked: a rotation may have committed a successor since.
      const { rows } = await tx.query(
        `DELETE FROM refresh_tokens WHERE family_id IN (
           SELECT family_id FROM refresh_tokens WHERE family_id = ANY($1::uuid[]) GROUP BY family_id HAVING ${familyDead('$2')}
         )
         RETURNING 1`,
        [dead.map((row) => row.family_id), this.maxLifetimeSeconds],
      );
      return rows.length;
    });
  }

  /** Counts a token issued, and sweeps every {@link REFRESH_TOKEN_SWEEP_EVERY}. */
  private async counted(): Promise<void> {
    if (++this.issued % REFRESH_TOKEN_SWEEP_EVERY === 0) await this.sweep();
  }

  /**
   * Stores a new token of `familyId`, expiring after the TTL or at `familyEndsAt`, whichever
   * comes first; a family's first token is given no end, which is then now plus the maximum lifetime.
   */
  private async insert(db: Queryable, grant: RefreshGrant, familyId: string, familyEndsAt: Date | null = null): Promise<string> {
    const token = newToken();
    await db.query(
      `INSERT INTO refresh_tokens (token_hash, family_id, username, client_id, scope, expires_at, dpop_jkt)
       VALUES ($1, $2, $3, $4, $5,
               least(now() + make_interval(secs => $6), coalesce($8::timestamptz, now() + make_interval(secs => $9))), $7)`,
      [
        digest(token),
        familyId,
        grant.username,
        grant.clientId,
        grant.scopes.join(' '),
        this.ttlSeconds,
        grant.dpopJkt ?? null,
        familyEndsAt,
        this.maxLifetimeSeconds,
      ],
    );
    return token;
  }
}

// The class of the families' advisory locks: any constant. Two-key locks never meet the one-key
// locks of the migration and the login throttle (PostgreSQL keeps the two key spaces apart).
const FAMILY_LOCK_CLASS = 7_310_413;

/**
 * Over the rows of one family (grouped by `family_id`), that none of its tokens can be used
 * again: each expired or revoked, or the family past its maximum lifetime (seconds, in the
 * query parameter named by `maxLifetime`, e.g. `'$3'`).
 */
const familyDead = (maxLifetime: string) =>
  `(bool_and(expires_at <= now() OR revoked_at IS NOT NULL) OR min(created_at) + make_interval(secs => ${maxLifetime}) <= now())`;

/**
 * Takes the lock of a family, held until the transaction ends: every change to a family (a
 * rotation, a reuse revoking it, a revocation) takes it before touching any of its rows, so they
 * run one after the other in one order, whichever process runs them. Without it, under READ
 * COMMITTED, a revocation waiting on the row a rotation locked would not see the successor the
 * rotation inserts, and two reuses locking their own rows first would deadlock on each other's.
 * On PGlite, which runs one transaction at a time, it is uncontended.
 */
const lockFamily = (tx: Queryable, familyId: string) =>
  tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [FAMILY_LOCK_CLASS, familyId]);

/** Locks the family of the token whose digest is `tokenHash` (a token's family never changes); its id, or `undefined` for an unknown token. */
async function lockFamilyOf(tx: Queryable, tokenHash: string): Promise<string | undefined> {
  const { rows } = await tx.query<Pick<TokenRow, 'family_id'>>('SELECT family_id FROM refresh_tokens WHERE token_hash = $1', [tokenHash]);
  const familyId = rows[0]?.family_id;
  if (familyId !== undefined) await lockFamily(tx, familyId);
  return familyId;
}

/** Revokes every token of a family; the caller holds its lock. */
const revokeFamily = (db: Queryable, familyId: string) =>
  db.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [familyId]);
