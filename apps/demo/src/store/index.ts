import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { RefreshTokenStore } from './refresh-tokens.js';
import { migrate } from './schema.js';
import { DEMO_USERS } from './seed.js';
import { UserStore } from './users.js';

/**
 * The demo's database: PGlite, PostgreSQL compiled to WebAssembly. It runs in-process, needs no
 * server and no native build (the npm package is plain JS + WASM), and stores its files in a
 * directory, so a restart keeps users and refresh tokens. It is real PostgreSQL, so the
 * `SELECT … FOR UPDATE` and transactions the refresh-token rotation relies on mean what they say.
 *
 * @example
 * ```ts
 * const db: Database = await PGlite.create(); // in memory
 * ```
 */
export type Database = PGlite;

/**
 * The store: the database with its tables (`schema.ts`), seeded with {@link DEMO_USERS}, and
 * the two stores over it.
 *
 * @example
 * ```ts
 * const store: DemoStore = await openStore({ dataDir: './data', refreshTokenTtlSeconds: 2_592_000 });
 * await store.users.find('alice');
 * await store.close();
 * ```
 */
export interface DemoStore {
  users: UserStore;
  refreshTokens: RefreshTokenStore;
  /** Users created by this opening (the seed runs only into an empty database). */
  seeded: string[];
  /** Closes the database. */
  close(): Promise<void>;
}

/**
 * Opens (creating on first use) the database under `dataDir/pgdata`, brings its tables up to
 * date and seeds the users that do not exist yet. Close it with `store.close()`.
 *
 * @example
 * ```ts
 * const store = await openStore({ dataDir: config.dataDir, refreshTokenTtlSeconds: config.refreshTokenTtlSeconds });
 * ```
 */
export async function openStore({ dataDir, refreshTokenTtlSeconds }: { dataDir: string; refreshTokenTtlSeconds: number }): Promise<DemoStore> {
  await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create(join(dataDir, 'pgdata'));
  try {
    await migrate(db);
    const users = await UserStore.open(db);
    const seeded = await users.seed(DEMO_USERS);
    return { users, refreshTokens: new RefreshTokenStore(db, refreshTokenTtlSeconds), seeded, close: () => db.close() };
  } catch (error) {
    await db.close();
    throw error;
  }
}
