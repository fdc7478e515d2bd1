import { randomUUID } from 'node:crypto';
import { chmod, link, lstat, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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

/**
 * Reads the JSON file at `path` and hands it to `check`, which returns what it holds or throws
 * if it is not usable. A missing file is first created (owner-only) from `create()`; a file
 * another process created meanwhile is kept, never overwritten, and read like any other, and no
 * process ever reads one half-written.
 *
 * @example
 * ```ts
 * const keys = await loadOrCreatePrivateJson(join(config.dataDir, 'keys.json'), checkKeys, generateKeys);
 * ```
 */
export async function loadOrCreatePrivateJson<T>(path: string, check: (stored: unknown) => Promise<T> | T, create: () => Promise<unknown>): Promise<T> {
  const load = async () => check(JSON.parse(await readFile(path, 'utf8')));
  try {
    return await load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Written whole beside it, then linked into place: a link never replaces a file another process
  // saved in the meantime, and nobody can read this one half-written under `path`.
  const written = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(written, `${JSON.stringify(await create(), null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await link(written, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(written, { force: true });
  }
  return load();
}
