import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/**
 * What a query answers: its rows.
 *
 * @example
 * ```ts
 * const { rows }: QueryResult<{ n: number }> = await db.query('SELECT 1 AS n');
 * ```
 */
export interface QueryResult<TRow> {
  rows: TRow[];
}

/**
 * Something queries run on: the database, or one transaction of it.
 *
 * @example
 * ```ts
 * const count = async (db: Queryable) => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM users')).rows[0]!.n;
 * ```
 */
export interface Queryable {
  /** One statement with `$1`-style parameters. */
  query<TRow = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<TRow>>;
  /** Statements without parameters, `;`-separated. */
  exec(sql: string): Promise<void>;
}

/**
 * The store's database, whichever PostgreSQL it is: the embedded PGlite (one process, a
 * directory) or a PostgreSQL server (any number of processes). The same SQL runs on both.
 *
 * @example
 * ```ts
 * const db: Database = await openPglite('./data/pgdata');
 * await db.transaction(async (tx) => tx.query('SELECT 1'));
 * ```
 */
export interface Database extends Queryable {
  /** `'pglite'` or `'postgres'`. */
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction (READ COMMITTED): committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The embedded PostgreSQL (PGlite, WebAssembly) with its files in `dir`, or in memory without one.
 *
 * @example
 * ```ts
 * const db = await openPglite(join(dataDir, 'pgdata'));
 * ```
 */
export async function openPglite(dir?: string): Promise<Database> {
  const db = await PGlite.create(dir);
  return {
    kind: 'pglite',
    query: <TRow>(sql: string, params?: readonly unknown[]) => db.query<TRow>(sql, params as unknown[]),
    exec: async (sql) => void (await db.exec(sql)),
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({
          query: <TRow>(sql: string, params?: readonly unknown[]) => tx.query<TRow>(sql, params as unknown[]),
          exec: async (sql) => void (await tx.exec(sql)),
        }),
      ),
    close: () => db.close(),
  };
}

// bigint (int8) as a JavaScript number: the store keeps only millisecond times in it.
const INT8_OID = 20;
const types = {
  getTypeParser: (oid: number, format?: string) =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text'),
};

/**
 * A PostgreSQL server at `url` (`postgres://user:password@host:port/database`), through a pool of
 * at most `maxConnections`. Several demo processes can share it: every rule the store relies on
 * (one use of a refresh token, the throttle's counts) is kept by row locks in the database.
 *
 * @example
 * ```ts
 * const db = await openPostgres(process.env.DATABASE_URL!);
 * ```
 */
export async function openPostgres(url: string, maxConnections = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: maxConnections, types });
  // A connection that fails while idle must not take the process down; the next query reconnects.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end();
    throw new Error(`Cannot reach the PostgreSQL server of DATABASE_URL: ${(error as Error).message}`);
  }
  const on = (client: pg.Pool | pg.PoolClient): Queryable => ({
    query: async <TRow>(sql: string, params?: readonly unknown[]) => {
      const result = await client.query(sql, params as unknown[]);
      return { rows: result.rows as TRow[] };
    },
    exec: async (sql) => void (await client.query(sql)),
  });
  return {
    kind: 'postgres',
    ...on(pool),
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(on(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
