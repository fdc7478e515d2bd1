import { chmod, copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateSigningKey, SIGNING_KEY_FILE } from '../src/auth/signing-key.js';
import { AUTHORIZATION_SERVER_KEYS_FILE, loadOrCreateAuthorizationServerKeys } from '../src/authorization-server/keys.js';
import { findPostgresBin, startPostgres, type TestPostgres } from './postgres.js';
import type { SoakTarget } from './run.js';
import { createServer } from 'node:net';

/**
 * A port free on 127.0.0.1 now, for a server that must be known by its URL before it starts.
 *
 * @example
 * ```ts
 * const publicUrl = `http://127.0.0.1:${await freePort()}`;
 * ```
 */
export const freePort = (): Promise<number> =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/**
 * Thrown when a soak of several servers is asked for and PostgreSQL's server programs are not
 * installed: the servers can only share a PostgreSQL server, which the soak starts itself.
 *
 * @example
 * ```ts
 * if (error instanceof PostgresMissingError) console.error(error.message);
 * ```
 */
export class PostgresMissingError extends Error {
  constructor(readonly instances: number) {
    super(
      `--instances ${instances} runs the demo servers on a PostgreSQL server the soak starts itself, and PostgreSQL's programs ` +
        '(initdb, pg_ctl) are not installed in /usr/lib/postgresql/<version>/bin (or PG_BIN): ' +
        'install them with `npm run install-postgresql -w @trpc-oauth2/demo`, or soak one server (--instances 1).',
    );
    this.name = 'PostgresMissingError';
  }
}

/**
 * A demo server a soak started: what the soak reads of it, and how to stop it.
 *
 * @example
 * ```ts
 * const server: SoakInstance = { url, memory, stop: () => demo.close() };
 * ```
 */
export interface SoakInstance extends SoakTarget {
  stop(): Promise<void>;
}

/**
 * Starts one demo server on `dataDir` (and on `databaseUrl` when set), listening on `port` (0:
 * one the OS picks) and naming `publicUrl` as its public URL when set: a child process for
 * `npm run soak` (`forkSoakServer`), the test's own process for the short soak in `npm test`.
 *
 * @example
 * ```ts
 * const launch: LaunchSoakServer = ({ dataDir, databaseUrl }) => forkSoakServer(dataDir, databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl });
 * ```
 */
export type LaunchSoakServer = (settings: { dataDir: string; databaseUrl: string | undefined; port: number; publicUrl: string | undefined }) => Promise<SoakInstance>;

/**
 * The servers of a soak and what they run on.
 *
 * @example
 * ```ts
 * const started: SoakInstances = await startSoakInstances(2, launch);
 * await runSoak(started.servers, options);
 * await started.stop();
 * ```
 */
export interface SoakInstances {
  servers: SoakInstance[];
  /** Each server's own data directory (temporary). */
  dataDirs: string[];
  /** The PostgreSQL server they share, when there are several. */
  databaseUrl: string | undefined;
  /** Stops the servers, then PostgreSQL, and deletes every directory made for them. */
  stop(): Promise<void>;
}

/**
 * Starts `count` demo servers through `launch`, each on a fresh temporary data directory. One
 * server keeps its database there (or wherever `DATABASE_URL` in the environment points). Two
 * or more share a PostgreSQL server started here (`initdb` + `pg_ctl` on 127.0.0.1, a free
 * port: see `startPostgres`), and one set of keys: the access-token signing key and the
 * authorization server's keys, made in the first data directory and copied (owner-only) into
 * the others, so an access token one server issues, every other accepts (the demo reads its
 * keys from its data directory). Throws {@link PostgresMissingError} when
 * `count > 1` and PostgreSQL is not installed; anything started before a failure is stopped.
 *
 * @example
 * ```ts
 * const started = await startSoakInstances(2, ({ dataDir, databaseUrl }) => forkSoakServer(dataDir, { DATABASE_URL: databaseUrl! }));
 * ```
 */
export async function startSoakInstances(count: number, launch: LaunchSoakServer, log: (line: string) => void = () => {}): Promise<SoakInstances> {
  let postgres: TestPostgres | undefined;
  if (count > 1) {
    const bin = await findPostgresBin();
    if (bin === undefined) throw new PostgresMissingError(count);
    postgres = await startPostgres(bin);
    log(`PostgreSQL (${bin}): ${postgres.url}`);
  }
  const dataDirs: string[] = [];
  const servers: SoakInstance[] = [];
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await postgres?.stop();
    await Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  };
  try {
    for (let i = 0; i < count; i += 1) dataDirs.push(await mkdtemp(join(tmpdir(), 'trpc-oauth2-soak-')));
    if (count > 1) {
      await loadOrCreateSigningKey(dataDirs[0]!);
      await loadOrCreateAuthorizationServerKeys(dataDirs[0]!);
      for (const dir of dataDirs.slice(1)) {
        for (const file of [SIGNING_KEY_FILE, AUTHORIZATION_SERVER_KEYS_FILE]) {
          await copyFile(join(dataDirs[0]!, file), join(dir, file));
          await chmod(join(dir, file), 0o600);
        }
      }
    }
    // One public URL for all, the first server's, as a load balancer's would be: one issuer at
    // /oidc, so a code or refresh token one server issues is redeemed at any other.
    const firstPort = count > 1 ? await freePort() : 0;
    const publicUrl = count > 1 ? `http://127.0.0.1:${firstPort}` : undefined;
    // Started together: migrating and seeding one database at once must not fail either.
    const launched = await Promise.allSettled(dataDirs.map((dataDir, i) => launch({ dataDir, databaseUrl: postgres?.url, port: i === 0 ? firstPort : 0, publicUrl })));
    for (const result of launched) if (result.status === 'fulfilled') servers.push(result.value);
    const failed = launched.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
    return { servers, dataDirs, databaseUrl: postgres?.url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
