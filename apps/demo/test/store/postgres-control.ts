import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/**
 * What a test does to the throwaway PostgreSQL server at `url` (one `startPostgres` started) to
 * see the demo through a database fault: stop it (an outage), start it again, end backends
 * (`pg_terminate_backend`: a failover, an administrator, a restart of one connection).
 */
export interface PostgresControl {
  /** `pg_ctl stop -m fast`: backends are ended (SQLSTATE 57P01), then the port is closed. */
  stop(): Promise<void>;
  /** `pg_ctl start` on the same port, with the options it was started with. */
  start(): Promise<void>;
  /** Ends the backends `where` selects from `pg_stat_activity` (never the caller's own); answers their pids. */
  terminate(where: string): Promise<number[]>;
  /** A connection of the test's own, for holding locks. */
  connect(): Promise<pg.Client>;
}

/**
 * Controls the PostgreSQL server at `url` with the programs in `bin`. Its data directory is
 * asked of the server, and the options it was started with are read back from
 * `postmaster.opts` (what `pg_ctl restart` reuses), so `start` brings back the same server.
 */
export async function controlPostgres(bin: string, url: string): Promise<PostgresControl> {
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    // A connection the server ends (stop, terminate) must not take the test process down.
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
  const admin = await connect();
  const { rows } = await admin.query<{ data_directory: string }>('SHOW data_directory');
  await admin.end();
  const data = rows[0]!.data_directory;
  // `"/usr/lib/postgresql/15/bin/postgres" "-D" "…" "-p" "…" …`: the options after the program.
  const opts = (await readFile(join(data, 'postmaster.opts'), 'utf8')).trim();
  const options = opts.slice(opts.indexOf(' ') + 1);
  const asRoot = userInfo().uid === 0;
  const pgCtl = (args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, 'pg_ctl'), ...args]] : [join(bin, 'pg_ctl'), args];
    return run(file, argv, { timeout: 60_000 });
  };
  return {
    stop: async () => void (await pgCtl(['-D', data, '-m', 'fast', '-w', 'stop'])),
    start: async () => void (await pgCtl(['-D', data, '-o', options, '-l', join(data, '..', 'log'), '-w', 'start'])),
    terminate: async (where) => {
      const client = await connect();
      try {
        const { rows: ended } = await client.query<{ pid: number }>(
          // Chosen first, then ended: in one WHERE, the planner may end a backend before it is excluded.
          `WITH chosen AS MATERIALIZED (SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND (${where}))
           SELECT pid FROM chosen WHERE pg_terminate_backend(pid)`,
        );
        return ended.map((row) => row.pid);
      } finally {
        await client.end();
      }
    },
    connect,
  };
}
