import type { PGlite } from '@electric-sql/pglite';

/**
 * Every table of the store, in one place: users, their items and the refresh tokens.
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
`;

/**
 * A row of `users`, as PGlite returns it.
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
  /** A scrypt PHC string (see `auth/passwords.ts`), never the password. */
  password_hash: string;
  scopes: string[];
  disabled: boolean;
}

/**
 * A row of `items`, as PGlite returns it.
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
 * A row of `refresh_tokens`, as PGlite returns it. Only the token's SHA-256 digest is stored.
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
}

/**
 * Creates the tables and indexes that do not exist yet; safe to run on every start.
 *
 * @example
 * ```ts
 * const db = await PGlite.create(); // in memory
 * await migrate(db);
 * ```
 */
export async function migrate(db: PGlite): Promise<void> {
  await db.exec(SCHEMA);
}
