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
 * How long a client is told to wait (`Retry-After`, seconds) when the database cannot be reached:
 * a restart or a failover of PostgreSQL takes seconds.
 *
 * @example
 * ```ts
 * res.setHeader('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
 * ```
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * What the driver says when the database cannot be reached, rather than that a statement is
 * wrong: no connection to be had (refused, reset, unreachable), SQLSTATE class 08 (connection
 * exception), and 57P01–57P03 (the server shut down, crashed, or is not accepting connections yet).
 */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', '57P01', '57P02', '57P03']);

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** The driver's error says the database is unreachable (see {@link UNREACHABLE}); Node's `AggregateError` of a connect is read through. */
const unreachable = (error: unknown): boolean => {
  const code = codeOf(error);
  if (code !== undefined && (UNREACHABLE.has(code) || code.startsWith('08'))) return true;
  return error instanceof AggregateError && error.errors.some(unreachable);
};

/**
 * The database cannot be reached: no connection could be had, or the one a query ran on was lost
 * (PostgreSQL stopped or restarted, a failover, an administrator ended the backend). Nothing is
 * wrong with the request: it may be tried again once the database is back, so the faces of the
 * demo answer it 503 with `Retry-After` ({@link isDatabaseUnavailable}). `code` is the driver's
 * (`ECONNREFUSED`, `57P01`, …), for the logs; `cause` is the driver's error.
 *
 * @example
 * ```ts
 * if (error instanceof DatabaseUnavailableError) console.error(`database unreachable (${error.code})`);
 * ```
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
  readonly code: string | undefined;

  constructor(cause: unknown, lost?: unknown) {
    super('The database cannot be reached', { cause });
    this.code = codeOf(cause) ?? codeOf(lost);
  }
}

/**
 * Whether `error`, or what it wraps (its `cause`, a few levels down: a `TRPCError` around the
 * store's error), says the database cannot be reached: a {@link DatabaseUnavailableError}, or a
 * driver's error of a lost or refused connection.
 *
 * @example
 * ```ts
 * if (isDatabaseUnavailable(error)) throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: 'Try again later', cause: error });
 * ```
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return databaseFaultOf(error) !== undefined;
}

/**
 * The error that says the database cannot be reached, found as {@link isDatabaseUnavailable}
 * finds it (`error` itself or one of its causes), or `undefined`: what a log line should name.
 *
 * @example
 * ```ts
 * const fault = databaseFaultOf(error); // DatabaseUnavailableError { code: 'ECONNREFUSED' }
 * ```
 */
export function databaseFaultOf(error: unknown): Error | undefined {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof DatabaseUnavailableError || unreachable(current)) return current;
    current = current.cause;
  }
  return undefined;
}

/**
 * A PostgreSQL server at `url` (`postgres://user:password@host:port/database`), through a pool of
 * at most `maxConnections`. Several demo processes can share it: every rule the store relies on
 * (one use of a refresh token, the throttle's counts) is kept by row locks in the database.
 *
 * A connection can be lost at any moment: while idle in the pool (it is dropped, the next query
 * opens another), or while a query or a transaction has it (that query fails with
 * {@link DatabaseUnavailableError}, and the connection is dropped from the pool rather than handed
 * out again). Either way the process lives on: every connection has an `error` listener for as
 * long as it is open, without which Node would end the process on the driver's `error` event. A
 * database that cannot be reached at all fails every query the same way, until it is back.
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
  /**
   * Runs `use` on a connection of the pool, checked out for it alone. The pool listens for a
   * connection's `error` only while it is idle: here it is listened for as long as `use` has it.
   * A query that fails on a lost connection (the driver's `error` came, or its error says so) is
   * a {@link DatabaseUnavailableError}, and the connection is released with it: the pool closes
   * it instead of handing it out again.
   */
  const checkedOut = async <T>(use: (on: Queryable, discard: () => void) => Promise<T>): Promise<T> => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      // No connection to be had: refused, unreachable, the server starting or shutting down.
      throw new DatabaseUnavailableError(error);
    }
    let lost: Error | undefined;
    let broken: Error | undefined;
    const onError = (error: Error) => void (lost ??= error);
    client.on('error', onError);
    const failed = (error: unknown) => {
      if (lost === undefined && !unreachable(error)) return error;
      broken ??= new DatabaseUnavailableError(error, lost);
      return broken;
    };
    const on: Queryable = {
      query: async <TRow>(sql: string, params?: readonly unknown[]) => {
        try {
          const result = await client.query(sql, params as unknown[]);
          return { rows: result.rows as TRow[] };
        } catch (error) {
          throw failed(error);
        }
      },
      exec: async (sql) => void (await on.query(sql)),
    };
    try {
      return await use(on, () => void (broken ??= new Error('The connection is left in an unknown state')));
    } finally {
      client.off('error', onError);
      // Back in the pool, whose own listener takes over; a broken connection is closed there.
      client.release(lost ?? broken);
    }
  };
  return {
    kind: 'postgres',
    query: (sql, params) => checkedOut((on) => on.query(sql, params)),
    exec: (sql) => checkedOut((on) => on.exec(sql)),
    transaction: (fn) =>
      checkedOut(async (tx, discard) => {
        await tx.query('BEGIN');
        try {
          const result = await fn(tx);
          await tx.query('COMMIT');
          return result;
        } catch (error) {
          // A connection whose transaction could not be rolled back is not used again.
          await tx.query('ROLLBACK').catch(discard);
          throw error;
        }
      }),
    close: () => pool.end(),
  };
}
