import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

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

/** The lock files this process holds now. */
const held = new Set<string>();

/** Whether a process with this pid is running (or exists, owned by another user). */
function isAlive(pid: number, path: string): boolean {
  // This process's pid: live if this process holds the lock, else a former process's that had it.
  if (pid === process.pid) return held.has(path);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const ownerOf = async (path: string): Promise<number | undefined> => {
  const text = await readFile(path, 'utf8').catch(() => '');
  const pid = Number.parseInt(text, 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
};

/**
 * Takes the data directory for this process, or throws {@link DataDirInUseError} when a live
 * process holds it. A lock left by a dead process (its pid no longer runs) is taken over, so a
 * restart after kill -9 is never blocked. The file is created with `O_EXCL`: of two processes
 * starting together, one wins. Returns the release function (removes the file if still ours).
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
  for (let attempt = 0; attempt < 5; attempt += 1) {
    try {
      const file = await open(path, 'wx', 0o600);
      await file.writeFile(`${process.pid}\n`);
      await file.close();
      held.add(path);
      return async () => {
        held.delete(path);
        if ((await ownerOf(path)) === process.pid) await rm(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await ownerOf(path);
    if (owner !== undefined && isAlive(owner, path)) throw new DataDirInUseError(dataDir, owner);
    // A stale lock (or one being written this instant: the next round reads it again).
    if (owner !== undefined || attempt > 0) await rm(path, { force: true });
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Could not take the lock ${path}`);
}
