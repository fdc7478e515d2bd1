import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, chmod, chown, mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A throwaway PostgreSQL server a test or a soak started: its URL, and how to stop it (and
 * delete its files).
 *
 * @example
 * ```ts
 * const postgres: TestPostgres = await startPostgres(bin);
 * await postgres.stop();
 * ```
 */
export interface TestPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * The directory of Debian's PostgreSQL programs (`initdb`, `pg_ctl`), the newest version's
 * (`PG_BIN` overrides it); `undefined` when none is installed.
 *
 * @example
 * ```ts
 * const bin = await findPostgresBin(); // '/usr/lib/postgresql/15/bin'
 * ```
 */
export async function findPostgresBin(): Promise<string | undefined> {
  const versions = await readdir('/usr/lib/postgresql').catch(() => [] as string[]);
  const newest = versions.filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a))[0];
  // PG_BIN points elsewhere (another install), or at nothing (to check the skip).
  const bin = process.env.PG_BIN || (newest === undefined ? undefined : `/usr/lib/postgresql/${newest}/bin`);
  if (bin === undefined) return undefined;
  return access(join(bin, 'initdb'), constants.X_OK).then(
    () => bin,
    () => undefined,
  );
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * Starts a throwaway PostgreSQL server: `initdb` into a temporary directory, `pg_ctl start`
 * listening on 127.0.0.1 only, at a free port, trusting local connections. The server refuses
 * to run as root, so as root it runs as the `postgres` user (`runuser`).
 *
 * @example
 * ```ts
 * const postgres = await startPostgres((await findPostgresBin())!);
 * process.env.DATABASE_URL = postgres.url; // postgres://postgres@127.0.0.1:<port>/postgres
 * ```
 */
export async function startPostgres(bin: string): Promise<TestPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'trpc-oauth2-pg-'));
  const data = join(dir, 'data');
  const asRoot = userInfo().uid === 0;
  const as = async (program: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]] : [join(bin, program), args];
    return run(file, argv, { timeout: 60_000 });
  };
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  await chmod(dir, 0o700);
  const port = await freePort();
  await as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
