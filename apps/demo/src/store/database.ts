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
  /**
   * Calls `onNotice` with the payload of every `NOTIFY` on `channel` sent by any process using
   * this database, and `onGap` whenever notices may have been missed (the connection listening
   * was lost, and is listening again). PGlite serves one process, which knows its own changes:
   * there, nothing is listened to. Listening ends on `close()`.
   */
  listen(channel: string, onNotice: (payload: string) => void, onGap: () => void): Promise<void>;
  /** Closes the database, and every connection listening on it. */
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
    // One process on one directory: whatever changes, this process changed it, and knows.
    listen: async () => undefined,
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
 * `ETIMEDOUT` is also what a wait past one of the {@link DatabaseTimeouts} fails with ({@link DatabaseTimeoutError}).
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
 * (PostgreSQL stopped or restarted, a failover, an administrator ended the backend), or it did not
 * answer in time (a connection or a query past its {@link DatabaseTimeouts}). Nothing is
 * wrong with the request: it may be tried again once the database is back, so the faces of the
 * demo answer it 503 with `Retry-After` ({@link isDatabaseUnavailable}). `code` is the driver's
 * (`ECONNREFUSED`, `57P01`, …), or `ETIMEDOUT` for a wait past its timeout, for the logs; `cause`
 * is the driver's error, or the timeout's (whose own `cause` is the driver's error, if any).
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
 * How long the demo waits on a PostgreSQL server before it gives up on a request (milliseconds).
 * Without them a server that hangs (it accepts connections but never answers, or stops answering
 * in the middle of one: a network partition, a host frozen) would hold every request for ever,
 * and a pool whose connections are all busy would queue requests without bound in time.
 *
 * @example
 * ```ts
 * const timeouts: DatabaseTimeouts = { connectMs: 5_000, queryMs: 10_000 };
 * ```
 */
export interface DatabaseTimeouts {
  /**
   * Longest wait for a connection: for one of the pool's to be free when all are busy, or for a
   * new one to be opened and ready (TCP, TLS, authentication).
   */
  connectMs: number;
  /**
   * Longest wait for the answer to one query on an established connection. A connection that
   * got no answer in time is closed, never used again: its answer could still come, and would
   * be read as the answer to the next query sent on it.
   */
  queryMs: number;
}

/**
 * The timeouts the demo runs with unless told otherwise (`DATABASE_CONNECT_TIMEOUT_MS`,
 * `DATABASE_QUERY_TIMEOUT_MS`): a few seconds, longer than any query of the store takes on a
 * server that answers, short enough that a client told to retry (503) is told so soon.
 *
 * @example
 * ```ts
 * const db = await openPostgres(url, 10, DEFAULT_DATABASE_TIMEOUTS);
 * ```
 */
export const DEFAULT_DATABASE_TIMEOUTS: Readonly<DatabaseTimeouts> = { connectMs: 5_000, queryMs: 10_000 };

/**
 * A wait on the database past one of its {@link DatabaseTimeouts}, as the cause of a
 * {@link DatabaseUnavailableError}. Its code is `ETIMEDOUT`, Node's own for a peer that stopped
 * answering, so the logs name it and {@link isDatabaseUnavailable} knows it by its code.
 */
class DatabaseTimeoutError extends Error {
  override readonly name = 'DatabaseTimeoutError';
  readonly code = 'ETIMEDOUT';
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
 * A database that does not answer is waited on for a bounded time only (`timeouts`): a connection
 * not had within `connectMs` (the pool's connections all busy, or a new one not ready), or a query
 * on one not answered within `queryMs`, fails the same way, with {@link DatabaseUnavailableError};
 * the connection whose query got no answer is closed, and the pool opens another for the next one.
 *
 * @example
 * ```ts
 * const db = await openPostgres(process.env.DATABASE_URL!, 10, { connectMs: 5_000, queryMs: 10_000 });
 * ```
 */
export async function openPostgres(url: string, maxConnections = 10, timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS): Promise<Database> {
  // `connectionTimeoutMillis` bounds both waits of a checkout: in the queue of a full pool, and
  // for a new connection, which the driver destroys when it is not ready in time.
  const pool = new pg.Pool({ connectionString: url, max: maxConnections, types, connectionTimeoutMillis: timeouts.connectMs });
  // A connection that fails while idle must not take the process down; the next query reconnects.
  pool.on('error', () => undefined);
  /**
   * Runs `use` on a connection of the pool, checked out for it alone. The pool listens for a
   * connection's `error` only while it is idle: here it is listened for as long as `use` has it.
   * A query that fails on a lost connection (the driver's `error` came, or its error says so), or
   * that got no answer in time, is a {@link DatabaseUnavailableError}, and the connection is
   * released with it: the pool closes it instead of handing it out again, and a later query of
   * `use` on it fails at once with the same error.
   */
  const checkedOut = async <T>(use: (on: Queryable, discard: () => void) => Promise<T>): Promise<T> => {
    let client: pg.PoolClient;
    // The driver's checkout timeouts say so in words only, without a code ('timeout exceeded when
    // trying to connect', 'Connection terminated due to connection timeout'): a checkout that
    // failed once `connectMs` had passed is known as timed out by the time it took instead (less
    // a millisecond: the loop's clock, which the driver's timer follows, may run that far behind).
    const started = performance.now();
    try {
      client = await pool.connect();
    } catch (error) {
      // No connection to be had: refused, unreachable, the server starting or shutting down, or
      // none within `connectMs`. A checkout that failed had no statement run: whatever the
      // driver's words, it is the database's fault, never the request's.
      const pastDeadline = performance.now() - started >= timeouts.connectMs - 1;
      const cause = pastDeadline ? new DatabaseTimeoutError(`No connection to the database within ${timeouts.connectMs} ms`, { cause: error }) : error;
      throw new DatabaseUnavailableError(cause);
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
    /**
     * `client.query`, failed with {@link DatabaseTimeoutError} after `queryMs` without an answer.
     * Client side: PostgreSQL's own `statement_timeout` is kept by the server, which a partition
     * or a frozen host keeps from answering at all, its cancellation included. The timer is this
     * module's own rather than the driver's `query_timeout`, whose error has no code, only a
     * message to compare: this one is known by what it is.
     */
    const answered = <TRow>(sql: string, params?: readonly unknown[]) => {
      // Sent first: a query the driver refuses at once (it throws) leaves no timer behind.
      const sent = client.query(sql, params as unknown[]);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DatabaseTimeoutError(`The database did not answer within ${timeouts.queryMs} ms`)), timeouts.queryMs);
      });
      // The driver's promise stays listened to by the race: once the connection is closed, it
      // fails ('Connection terminated'), and that failure is not an unhandled rejection.
      return Promise.race([sent, timedOut]).finally(() => clearTimeout(timer)) as Promise<pg.QueryResult<TRow & pg.QueryResultRow>>;
    };
    const on: Queryable = {
      query: async <TRow>(sql: string, params?: readonly unknown[]) => {
        // A connection lost, or left with a query unanswered, is not written to again: what it
        // would answer could be the late answer of the query before (a ROLLBACK of a transaction
        // whose query timed out would otherwise wait out the timeout a second time).
        if (broken !== undefined) throw broken;
        try {
          const result = await answered<TRow>(sql, params);
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
      // Back in the pool, whose own listener takes over; a broken connection is closed there
      // (the driver destroys the socket of one whose query is still unanswered).
      client.release(lost ?? broken);
    }
  };
  try {
    await checkedOut((on) => on.query('SELECT 1'));
  } catch (error) {
    await pool.end();
    const reason = error instanceof DatabaseUnavailableError && error.cause instanceof Error ? error.cause : (error as Error);
    throw new Error(`Cannot reach the PostgreSQL server of DATABASE_URL: ${reason.message}`);
  }
  const listeners: Array<() => Promise<void>> = [];
  return {
    kind: 'postgres',
    listen: async (channel, onNotice, onGap) => {
      listeners.push(await listenOn({ url, timeouts, channel, onNotice, onGap }));
    },
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
    close: async () => {
      await Promise.all(listeners.splice(0).map((stop) => stop()));
      await pool.end();
    },
  };
}

/** How long a lost listening connection waits before it is opened again (milliseconds). */
const LISTEN_RETRY_MS = 1_000;

/**
 * `LISTEN channel` on a connection of its own (a pooled one goes back to the pool, and its
 * `LISTEN` with it), kept open: a connection lost (PostgreSQL restarted, a failover, a backend
 * ended) is opened again every {@link LISTEN_RETRY_MS} until it listens, and then `onGap` says
 * that notices sent meanwhile were missed. Answers once the first attempt is over (listening, or
 * retrying in the background); the function answered stops it.
 */
async function listenOn({
  url,
  timeouts,
  channel,
  onNotice,
  onGap,
}: {
  url: string;
  timeouts: DatabaseTimeouts;
  channel: string;
  onNotice: (payload: string) => void;
  onGap: () => void;
}): Promise<() => Promise<void>> {
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;
  const again = () => {
    if (!stopped && retry === undefined) retry = setTimeout(() => ((retry = undefined), void attempt()), LISTEN_RETRY_MS);
  };
  const attempt = async () => {
    const client = new pg.Client({ connectionString: url, types, connectionTimeoutMillis: timeouts.connectMs, query_timeout: timeouts.queryMs, keepAlive: true });
    // Lost while listening or while opening: `end` follows, and the connection is opened again.
    client.on('error', () => undefined);
    client.on('end', () => {
      if (current === client) current = undefined;
      again();
    });
    client.on('notification', (notice) => {
      if (notice.channel === channel) onNotice(notice.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch {
      // Not waited for: a server that stopped answering would hold it, and the retry behind it.
      client.end().catch(() => undefined);
      again();
      return;
    }
    if (stopped) return void client.end().catch(() => undefined);
    current = client;
    onGap();
  };
  await attempt();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    // A server that stopped answering never acknowledges the end either: closing waits for it
    // no longer than for a query's answer.
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeouts.queryMs).unref()));
    await Promise.race([current?.end().catch(() => undefined), waited]);
    clearTimeout(timer);
  };
}
