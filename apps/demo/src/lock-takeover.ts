/**
 * Taking over a lock file its owner left behind (a process killed, or one whose lock went stale),
 * shared by the data directory's lock (`store/data-dir-lock.ts`) and the command-line client's
 * session lock (`client/session.ts`). Both take a lock by hard-linking a file of their own to the
 * lock's name, which fails when the name exists; a takeover removes a stale lock and links again.
 * @module
 */
import { mkdir, rm, stat } from 'node:fs/promises';

/** A takeover older than this was left by a process that died during it: it is cleared. */
const STALE_TAKEOVER_MS = 10_000;

/**
 * Runs `fn` while holding the takeover guard beside the lock (a directory: `mkdir` either creates
 * it or fails, atomically), or answers `undefined` at once when another process holds it.
 */
async function underTakeoverGuard<T>(lockPath: string, fn: () => Promise<T>): Promise<T | undefined> {
  const guard = `${lockPath}.takeover`;
  try {
    await mkdir(guard, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const since = await stat(guard).then((info) => Date.now() - info.mtimeMs, () => 0);
    if (since > STALE_TAKEOVER_MS) await rm(guard, { recursive: true, force: true });
    return undefined;
  }
  try {
    return await fn();
  } finally {
    await rm(guard, { recursive: true, force: true });
  }
}

/**
 * Takes over the lock at `lockPath`, found stale with the content `stale` (`undefined`: it was gone
 * when read), under the takeover guard: of processes finding the same stale lock, one takes it.
 * The lock is removed only while `read` still finds that very content; a lock gone meanwhile is
 * taken the ordinary way (`take`, which fails if another process linked one since), so a lock
 * linked between the look and the removal is never removed. Answers whether this process took it.
 *
 * @example
 * ```ts
 * const took = await takeOverStale(path, owner.line, async () => (await ownerOf(path)).line, take);
 * ```
 */
export async function takeOverStale(lockPath: string, stale: string | undefined, read: () => Promise<string | undefined>, take: () => Promise<boolean>): Promise<boolean> {
  const took = await underTakeoverGuard(lockPath, async () => {
    const current = await read();
    if (current === undefined) return take();
    if (current !== stale) return false;
    await rm(lockPath, { force: true });
    return take();
  });
  return took === true;
}
