import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError, isDatabaseUnavailable, openPostgres, type Database } from '../../src/store/database.js';
import { postgresBinForTests, startPostgres, type TestPostgres } from '../support/postgres.js';
import { controlPostgres, type PostgresControl } from './postgres-control.js';
import { expectNoUncaughtExceptions } from '../support/uncaught.js';

// A PostgreSQL server's connection can end under the demo at any moment (a failover, a restart,
// an administrator's pg_terminate_backend), and the server can be away a while: the query or
// transaction under way fails, the process lives on, and the pool serves the next one.
const bin = await postgresBinForTests('the database fault tests');

/** Resolves once `found` answers something other than `undefined` (polled). */
async function until<T>(found: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await found();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(bin === undefined)('a PostgreSQL server that drops connections or goes away', () => {
  let postgres: TestPostgres;
  let control: PostgresControl;
  let db: Database;
  expectNoUncaughtExceptions();
  beforeAll(async () => {
    postgres = await startPostgres(bin!);
    control = await controlPostgres(bin!, postgres.url);
    db = await openPostgres(postgres.url, 2);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await postgres?.stop();
  }, 60_000);

  /** Ends the backend of `pid` once `state` says it is where the test wants it. */
  const terminateWhen = (pid: () => number | undefined, state: string) =>
    until(async () => {
      const id = pid();
      if (id === undefined) return undefined;
      const ended = await control.terminate(`pid = ${id} AND ${state}`);
      return ended.length > 0 ? ended : undefined;
    });

  it('a connection ended while a transaction waits on a query: the transaction fails, the process lives, the pool goes on', async () => {
    let pid: number | undefined;
    const transaction = db.transaction(async (tx) => {
      pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await tx.query('SELECT pg_sleep(30)');
    });
    const outcome = transaction.then(
      () => 'committed',
      (error: Error) => error,
    );
    await terminateWhen(() => pid, "wait_event = 'PgSleep'");
    const failure = await outcome;
    expect(failure).toBeInstanceOf(DatabaseUnavailableError);
    expect((failure as DatabaseUnavailableError).code).toBe('57P01');
    // Both connections of the pool still serve (the broken one was dropped, not handed out again).
    const pids = await Promise.all([1, 2].map(() => db.transaction(async (tx) => (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid, pg_sleep(0.05)')).rows[0]!.pid)));
    expect(pids).not.toContain(pid);
  });

  it('a connection ended while a transaction holds it idle (between two queries): the next query fails, the process lives', async () => {
    let pid: number | undefined;
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    const transaction = db.transaction(async (tx) => {
      pid = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
      await resumed;
      await tx.query('SELECT 1');
    });
    const outcome = transaction.then(
      () => 'committed',
      (error: Error) => error,
    );
    await terminateWhen(() => pid, "state = 'idle in transaction'");
    // The client learns of it while nothing of its own runs on the connection.
    await new Promise((resolve) => setTimeout(resolve, 200));
    resume();
    expect(await outcome).toBeInstanceOf(DatabaseUnavailableError);
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('a server gone away: queries and transactions fail, and work again once it is back', async () => {
    await control.stop();
    try {
      const failures = await Promise.all([
        db.query('SELECT 1').then(() => undefined, (error: Error) => error),
        db.transaction((tx) => tx.query('SELECT 1')).then(() => undefined, (error: Error) => error),
      ]);
      for (const failure of failures) {
        expect(failure).toBeInstanceOf(DatabaseUnavailableError);
        expect((failure as DatabaseUnavailableError).code).toBe('ECONNREFUSED');
      }
    } finally {
      await control.start();
    }
    expect((await db.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    expect(await db.transaction(async (tx) => (await tx.query<{ one: number }>('SELECT 1 AS one')).rows)).toEqual([{ one: 1 }]);
  }, 60_000);
});

describe('isDatabaseUnavailable', () => {
  const withCode = (code: string) => Object.assign(new Error('x'), { code });

  it.each(['ECONNREFUSED', 'ECONNRESET', '08006', '08001', '57P01', '57P02', '57P03'])('is true of a driver error %s, and of a fault wrapping it', (code) => {
    expect(isDatabaseUnavailable(withCode(code))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: withCode(code) }))).toBe(true);
  });

  it('is true of every address of a connect refused (AggregateError), and of DatabaseUnavailableError', () => {
    expect(isDatabaseUnavailable(Object.assign(new AggregateError([withCode('ECONNREFUSED')]), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([withCode('ECONNREFUSED'), withCode('ENETUNREACH')]))).toBe(true);
    expect(isDatabaseUnavailable(new DatabaseUnavailableError(new Error('Connection terminated unexpectedly')))).toBe(true);
  });

  it.each(['23505', '40001', '40P01', '57014', '22021', '42P01'])('is false of a statement refused (%s)', (code) => {
    expect(isDatabaseUnavailable(withCode(code))).toBe(false);
  });

  it('is false of anything else', () => {
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
