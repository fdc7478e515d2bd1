import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PasswordQueue } from './password-queue.js';
import { lockDataDir } from './data-dir-lock.js';
import { DEFAULT_DATABASE_TIMEOUTS, openPglite, openPostgres, type Database, type DatabaseTimeouts } from './database.js';
import { makePrivate } from './private-files.js';
import { OidcPayloadStore } from './oidc-payloads.js';
import { REFRESH_TOKEN_MAX_LIFETIME_SECONDS, RefreshTokenStore } from './refresh-tokens.js';
import { DPoPProofStore } from './dpop-proofs.js';
import { migrate } from './schema.js';
import { DEMO_USERS } from './seed.js';
import { UserStore } from './users.js';

/**
 * The store: the database with its tables (`schema.ts`), seeded with {@link DEMO_USERS}, and
 * the stores over it.
 *
 * @example
 * ```ts
 * const store: DemoStore = await openStore({ dataDir: './data', refreshTokenTtlSeconds: 2_592_000 });
 * await store.users.find('alice');
 * await store.close();
 * ```
 */
export interface DemoStore {
  db: Database;
  users: UserStore;
  refreshTokens: RefreshTokenStore;
  /** The DPoP proofs seen, shared by every instance on one PostgreSQL server. */
  dpopProofs: DPoPProofStore;
  /** What the authorization server at `/oidc` keeps (its oidc-provider adapter). */
  oidcPayloads: OidcPayloadStore;
  /** Users created by this opening (the seed runs only into an empty database). */
  seeded: string[];
  /** Closes the database (and gives the data directory back). */
  close(): Promise<void>;
}

/**
 * Where the store lives and how it checks passwords.
 *
 * @example
 * ```ts
 * const options: StoreOptions = { dataDir: './data', refreshTokenTtlSeconds: 2_592_000, databaseUrl: 'postgres://demo@127.0.0.1/demo' };
 * ```
 */
export interface StoreOptions {
  dataDir: string;
  refreshTokenTtlSeconds: number;
  /**
   * How long a refresh-token family lives at most from its login, however often it rotates
   * (see {@link RefreshTokenStore}); default {@link REFRESH_TOKEN_MAX_LIFETIME_SECONDS} (90 days).
   * A token never outlives it, even with a longer TTL.
   */
  refreshTokenMaxLifetimeSeconds?: number | undefined;
  /** A PostgreSQL server to use instead of the embedded database in `dataDir/pgdata`. */
  databaseUrl?: string | undefined;
  /**
   * How long to wait on that server for a connection and for a query's answer; default
   * {@link DEFAULT_DATABASE_TIMEOUTS}. The embedded database runs in-process and has none.
   */
  databaseTimeouts?: DatabaseTimeouts | undefined;
  passwords?: PasswordQueue;
}

/**
 * Opens (creating on first use) the database, brings its tables up to date and seeds the users
 * that do not exist yet. Close it with `store.close()`.
 *
 * Without `databaseUrl` it is PGlite, PostgreSQL compiled to WebAssembly, in `dataDir/pgdata`: it
 * runs in-process, needs no server and no native build, and serves one process only. So the data
 * directory is locked (`data-dir-lock.ts`; a second process refuses to start with a clear
 * message, a lock left by a dead one is taken over) and kept private to its owner: directories
 * 0700, files 0600, on every start and after closing (`private-files.ts`). With `databaseUrl`
 * it is that PostgreSQL server, which any number of processes may share.
 *
 * @example
 * ```ts
 * const store = await openStore({ dataDir: config.dataDir, refreshTokenTtlSeconds: config.refreshTokenTtlSeconds });
 * ```
 */
export async function openStore({
  dataDir,
  refreshTokenTtlSeconds,
  refreshTokenMaxLifetimeSeconds = REFRESH_TOKEN_MAX_LIFETIME_SECONDS,
  databaseUrl,
  databaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  passwords,
}: StoreOptions): Promise<DemoStore> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await makePrivate(dataDir);
  let release = async () => undefined as void;
  let db: Database;
  if (databaseUrl) {
    db = await openPostgres(databaseUrl, undefined, databaseTimeouts);
  } else {
    release = await lockDataDir(dataDir);
    try {
      db = await openPglite(join(dataDir, 'pgdata'));
      await makePrivate(dataDir);
    } catch (error) {
      await release();
      throw error;
    }
  }
  const close = async () => {
    try {
      await db.close();
      if (!databaseUrl) await makePrivate(dataDir);
    } finally {
      await release();
    }
  };
  try {
    await migrate(db);
    const users = await UserStore.open(db, passwords);
    const seeded = await users.seed(DEMO_USERS);
    return {
      db,
      users,
      refreshTokens: new RefreshTokenStore(db, refreshTokenTtlSeconds, refreshTokenMaxLifetimeSeconds),
      dpopProofs: new DPoPProofStore(db),
      oidcPayloads: new OidcPayloadStore(db),
      seeded,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
