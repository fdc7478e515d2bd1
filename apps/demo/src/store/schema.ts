import type { Database } from './database.js';

/**
 * Every table of the store, in one place: users, their items, the refresh tokens (bound to a
 * DPoP key when issued with a proof), the DPoP proofs seen, the login throttle's failure counts
 * and its attempts under way, and what the authorization server keeps (sessions, interactions,
 * codes, grants, its own tokens).
 * `IF NOT EXISTS` throughout, so running it on every start is safe.
 */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS users (
    username      text PRIMARY KEY,
    full_name     text NOT NULL,
    email         text NOT NULL,
    password_hash text NOT NULL,
    scopes        text[] NOT NULL,
    disabled      boolean NOT NULL DEFAULT false
  );
  CREATE TABLE IF NOT EXISTS items (
    id    serial PRIMARY KEY,
    owner text NOT NULL REFERENCES users (username) ON DELETE CASCADE,
    title text NOT NULL
  );
  CREATE TABLE IF NOT EXISTS refresh_tokens (
    token_hash text PRIMARY KEY,
    family_id  uuid NOT NULL,
    username   text NOT NULL REFERENCES users (username) ON DELETE CASCADE,
    client_id  text,
    scope      text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    revoked_at timestamptz
  );
  CREATE INDEX IF NOT EXISTS refresh_tokens_family ON refresh_tokens (family_id);
  ALTER TABLE refresh_tokens ADD COLUMN IF NOT EXISTS dpop_jkt text;
  CREATE TABLE IF NOT EXISTS dpop_proofs (
    key        text PRIMARY KEY,
    expires_at bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS dpop_proofs_expiry ON dpop_proofs (expires_at);
  CREATE TABLE IF NOT EXISTS oidc_payloads (
    model       text NOT NULL,
    id          text NOT NULL,
    payload     jsonb NOT NULL,
    grant_id    text,
    user_code   text,
    uid         text,
    expires_at  timestamptz,
    consumed_at timestamptz,
    PRIMARY KEY (model, id)
  );
  CREATE INDEX IF NOT EXISTS oidc_payloads_grant ON oidc_payloads (grant_id);
  CREATE INDEX IF NOT EXISTS oidc_payloads_uid ON oidc_payloads (uid);
  CREATE INDEX IF NOT EXISTS oidc_payloads_expiry ON oidc_payloads (expires_at);
  CREATE TABLE IF NOT EXISTS login_failures (
    kind       text NOT NULL,
    key        text NOT NULL,
    failures   integer NOT NULL,
    ends_at_ms bigint NOT NULL,
    PRIMARY KEY (kind, key)
  );
  CREATE INDEX IF NOT EXISTS login_failures_ends ON login_failures (kind, ends_at_ms);
  CREATE TABLE IF NOT EXISTS login_attempts (
    id            bigserial PRIMARY KEY,
    username_key  text,
    address       text NOT NULL,
    expires_at_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS login_attempts_username ON login_attempts (username_key, expires_at_ms);
  CREATE INDEX IF NOT EXISTS login_attempts_address ON login_attempts (address, expires_at_ms);
  CREATE INDEX IF NOT EXISTS login_attempts_expiry ON login_attempts (expires_at_ms);
`;

// Any constant: processes migrating the same PostgreSQL server at once take turns on it.
const MIGRATION_LOCK = 7_310_412;

/**
 * A row of `users`, as the database returns it.
 *
 * @example
 * ```ts
 * const { rows } = await db.query<UserRow>('SELECT * FROM users WHERE username = $1', ['alice']);
 * ```
 */
export interface UserRow {
  username: string;
  full_name: string;
  email: string;
  /** A scrypt PHC string (see `store/passwords.ts`), never the password. */
  password_hash: string;
  scopes: string[];
  disabled: boolean;
}

/**
 * A row of `items`, as the database returns it.
 *
 * @example
 * ```ts
 * const { rows } = await db.query<Pick<ItemRow, 'id' | 'title'>>('SELECT id, title FROM items WHERE owner = $1', ['alice']);
 * ```
 */
export interface ItemRow {
  id: number;
  owner: string;
  title: string;
}

/**
 * A row of `refresh_tokens`, as the database returns it. Only the token's SHA-256 digest is stored.
 *
 * @example
 * ```ts
 * const { rows } = await db.query<RefreshTokenRow>('SELECT * FROM refresh_tokens WHERE family_id = $1', [familyId]);
 * ```
 */
export interface RefreshTokenRow {
  token_hash: string;
  family_id: string;
  username: string;
  client_id: string | null;
  scope: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
  /** The thumbprint of the DPoP key the token is bound to (RFC 9449 §5), or `null`. */
  dpop_jkt: string | null;
}

/**
 * A row of `oidc_payloads`: one object of the authorization server (`model` is its kind, such
 * as `Session`, `AuthorizationCode` or `Grant`), as oidc-provider hands it to its adapter.
 *
 * @example
 * ```ts
 * const { rows } = await db.query<OidcPayloadRow>('SELECT * FROM oidc_payloads WHERE grant_id = $1', [grantId]);
 * ```
 */
export interface OidcPayloadRow {
  model: string;
  id: string;
  payload: Record<string, unknown>;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  expires_at: Date | null;
  consumed_at: Date | null;
}

/**
 * A row of `login_failures`: one username's (`kind` `username`, `key` its SHA-256) or one
 * address's failure count in the window ending at `ends_at_ms`.
 *
 * @example
 * ```ts
 * const { rows } = await db.query<LoginFailureRow>('SELECT * FROM login_failures WHERE kind = $1', ['address']);
 * ```
 */
export interface LoginFailureRow {
  kind: 'username' | 'address';
  key: string;
  failures: number;
  ends_at_ms: number;
}

/**
 * A row of `login_attempts`: a login attempt under way, begun and not settled yet, by the username
 * of digest `username_key` (`null` for a client authenticating without a password) from
 * `address`. It counts against both limits until it settles or `expires_at_ms` passes,
 * whichever comes first; it is not a failure.
 *
 * @example
 * ```ts
 * const { rows } = await db.query<LoginAttemptRow>('SELECT * FROM login_attempts WHERE address = $1', ['127.0.0.1']);
 * ```
 */
export interface LoginAttemptRow {
  id: number;
  username_key: string | null;
  address: string;
  expires_at_ms: number;
}

/**
 * Creates the tables and indexes that do not exist yet; safe to run on every start, and from
 * several processes at once (they take turns on a transaction-scoped advisory lock).
 *
 * @example
 * ```ts
 * const db = await openPglite(); // in memory
 * await migrate(db);
 * ```
 */
export async function migrate(db: Database): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.exec(SCHEMA);
  });
}
