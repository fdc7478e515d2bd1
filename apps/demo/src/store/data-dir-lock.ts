import { randomBytes } from 'node:crypto';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { takeOverStale } from '../lock-takeover.js';

/**
 * The lock file a running server keeps in its data directory: its pid, so a later start can tell
 * a live owner from one that died without removing it (kill -9, a crash, a power cut).
 *
 * @example
 * ```ts
 * join(config.dataDir, LOCK_FILE);
 * ```
 */
export const LOCK_FILE = 'server.lock';

/**
 * Thrown when another live process holds the data directory.
 *
 * @example
 * ```ts
 * if (error instanceof DataDirInUseError) console.error(error.message);
 * ```
 */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
  ) {
    super(
      `${dataDir} is in use by another demo server (pid ${ownerPid}). The embedded database serves one process: ` +
        'stop that server, give this one another DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.',
    );
    this.name = 'DataDirInUseError';
  }
}

/** What this process wrote into the lock files it holds or is taking now: its pid and a nonce. */
const held = new Set<string>();

/** A lock file's content: the owner's pid (if readable) and the whole line, which names one start of it. */
interface LockOwner {
  pid: number | undefined;
  line: string | undefined;
}

/** Whether the owner is running (or exists, owned by another user). */
function isAlive({ pid, line }: LockOwner): boolean {
  if (pid === undefined) return false;
  // This process's pid: live if this process holds (or is taking) that very lock.
  if (pid === process.pid) return line !== undefined && held.has(line);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const ownerOf = async (path: string): Promise<LockOwner> => {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  const pid = Number.parseInt(text ?? '', 10);
  return { pid: Number.isInteger(pid) && pid > 0 ? pid : undefined, line: text?.trim() };
};

/**
 * Takes the data directory for this process, or throws {@link DataDirInUseError} when a live
 * process holds it. The lock file appears whole or not at all: it is written under a name of its
 * own, then hard-linked to `server.lock` (`link` fails if the name exists), so of processes
 * starting together one wins and no one reads a half-written pid. A lock left by a dead process
 * (kill -9, a crash) is taken over, so a restart is never blocked; the takeover runs under a
 * guard only one process holds, which checks again that the lock it removes is the stale one,
 * so of processes finding the same stale lock exactly one takes it. Returns the release function
 * (removes the file if still ours).
 *
 * @example
 * ```ts
 * const release = await lockDataDir(config.dataDir);
 * // … serve …
 * await release();
 * ```
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const path = join(dataDir, LOCK_FILE);
  const line = `${process.pid} ${randomBytes(8).toString('hex')}`;
  const mine = `${path}.${line.replace(' ', '.')}`;
  await writeFile(mine, `${line}\n`, { mode: 0o600, flag: 'wx' });
  // Marked before the link: a start in this process that reads it a moment later sees it live.
  held.add(line);
  const take = () =>
    link(mine, path).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return false;
        throw error;
      },
    );
  const release = async () => {
    try {
      // Still counted as held until it is gone: a start in this process never takes it for a
      // stale one of its own pid, and removes another's lock linked meanwhile.
      if ((await ownerOf(path)).line === line) await rm(path, { force: true });
    } finally {
      held.delete(line);
    }
  };
  try {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (await take()) return release;
      const owner = await ownerOf(path);
      if (isAlive(owner)) throw new DataDirInUseError(dataDir, owner.pid!);
      // Stale (or gone since): removed only if it is still the one found stale, under the guard.
      if (await takeOverStale(path, owner.line, async () => (await ownerOf(path)).line, take)) return release;
      // Another start is taking over or just took it: look again shortly.
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
    }
    throw new Error(`Could not take the lock ${path}`);
  } catch (error) {
    held.delete(line);
    throw error;
  } finally {
    await rm(mine, { force: true });
  }
}
