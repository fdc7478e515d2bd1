import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

/**
 * The demo's database: PGlite, PostgreSQL compiled to WebAssembly. It runs in-process, needs no
 * server and no native build (the npm package is plain JS + WASM), and stores its files in a
 * directory, so a restart keeps users and refresh tokens. It is real PostgreSQL, so the
 * `SELECT … FOR UPDATE` and transactions the refresh-token rotation relies on mean what they say.
 *
 * @example
 * ```ts
 * const db: Database = await openDatabase('./data');
 * ```
 */
export type Database = PGlite;

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
 * Creates the tables and indexes that do not exist yet; safe to run on every start.
 *
 * @example
 * ```ts
 * const db = await PGlite.create(); // in memory
 * await migrate(db);
 * ```
 */
export async function migrate(db: Database): Promise<void> {
  await db.exec(SCHEMA);
}

/**
 * Opens (creating on first use) the database under `dataDir/pgdata` and brings its schema up to
 * date. Close it with `db.close()`.
 *
 * @example
 * ```ts
 * const db = await openDatabase(config.dataDir);
 * await db.query('SELECT count(*) FROM users');
 * await db.close();
 * ```
 */
export async function openDatabase(dataDir: string): Promise<Database> {
  await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create(join(dataDir, 'pgdata'));
  await migrate(db);
  return db;
}
