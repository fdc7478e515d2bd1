import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Makes everything under `dir` private to its owner: directories 0700, files 0600 (symbolic
 * links are left alone). PGlite creates most of its files 0666 whatever the umask, the WAL
 * among them, which holds the password hashes; this runs on every start and after each close.
 *
 * @example
 * ```ts
 * await makePrivate(config.dataDir);
 * ```
 */
export async function makePrivate(dir: string): Promise<void> {
  const stats = await lstat(dir);
  if (stats.isSymbolicLink()) return;
  if (!stats.isDirectory()) {
    if ((stats.mode & 0o077) !== 0) await chmod(dir, 0o600);
    return;
  }
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir)) {
    // A file PGlite removes meanwhile is no longer anyone's to read.
    await makePrivate(join(dir, entry)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }
}
