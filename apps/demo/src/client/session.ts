import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { takeOverStale } from '../lock-takeover.js';
import type { StoredDPoPKey } from './dpop.js';

/**
 * What the command-line client remembers between commands: which way it logged in, at which
 * server, and the tokens it holds.
 *
 * @example
 * ```ts
 * const session: ClientSession = { url: 'http://127.0.0.1:3000', flow: 'password', username: 'alice', accessToken: 'eyJ…', refreshToken: 'r…', scope: 'me items', expiresAt: 1_900_000_000 };
 * ```
 */
export interface ClientSession {
  url: string;
  /** `password`: the demo's token endpoint; `authorization_code`: the authorization server at `/oidc`. */
  flow: 'password' | 'authorization_code';
  /** Who logged in, when known (the password flow names the user; the browser flow does not say). */
  username: string | null;
  accessToken: string;
  refreshToken: string | null;
  scope: string;
  /**
   * When the access token expires, in seconds since the epoch; `null` when the server did not say
   * (a token response without `expires_in`, RFC 6749 §5.1): its lifetime is unknown, so it is not
   * refreshed ahead, only once the server refuses it (401 `invalid_token`).
   */
  expiresAt: number | null;
  /**
   * The DPoP key the tokens are bound to (RFC 9449), kept for the session: every call, refresh
   * and stream signs its proof with it. Absent: bearer tokens.
   */
  dpop?: StoredDPoPKey;
}

/**
 * When a token that a token response says lives `expiresIn` seconds expires (seconds since the
 * epoch), or `null` when the response gave no `expires_in`: an unknown lifetime (RFC 6749 §5.1),
 * never a token that expires now, which would have it refreshed at once on every connection.
 *
 * @example
 * ```ts
 * expiresAtOf(900, 1_900_000_000); // 1_900_000_900
 * expiresAtOf(undefined, 1_900_000_000); // null
 * ```
 */
export function expiresAtOf(expiresIn: number | undefined, now: number): number | null {
  return expiresIn === undefined ? null : now + expiresIn;
}

/**
 * Where the session is kept: `$DEMO_SESSION`, else `~/.trpc-oauth2-demo/session.json`.
 *
 * @example
 * ```ts
 * sessionPath({ DEMO_SESSION: '/tmp/s.json' }); // '/tmp/s.json'
 * ```
 */
export function sessionPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.DEMO_SESSION || join(homedir(), '.trpc-oauth2-demo', 'session.json');
}

/**
 * Reads the session, or `null` when there is none (or it is not one).
 *
 * @example
 * ```ts
 * const session = await loadSession(sessionPath());
 * ```
 */
export async function loadSession(path: string): Promise<ClientSession | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const session = JSON.parse(text) as Partial<ClientSession>;
    return typeof session.accessToken === 'string' && typeof session.url === 'string' ? (session as ClientSession) : null;
  } catch {
    return null;
  }
}

/**
 * Saves the session, readable by its owner only (it holds tokens). The file is replaced whole in
 * one step: the session is written to a file of its own beside it (mode 0600, flushed to disk),
 * then renamed over it, so a command reading it meanwhile finds the old session or the new one,
 * never none or half of one, and a crash mid-save leaves the old one.
 *
 * @example
 * ```ts
 * await saveSession(sessionPath(), session);
 * ```
 */
export async function saveSession(path: string, session: ClientSession): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    // 'wx': a new file of this process's own (never one someone put there, nor a link they made).
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(`${JSON.stringify(session, null, 2)}\n`, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * Forgets the session.
 *
 * @example
 * ```ts
 * await clearSession(sessionPath());
 * ```
 */
export async function clearSession(path: string): Promise<void> {
  await rm(path, { force: true });
}

/**
 * Thrown when another command holds the session's lock for longer than a command waits.
 *
 * @example
 * ```ts
 * if (error instanceof SessionBusyError) console.error(error.message);
 * ```
 */
export class SessionBusyError extends Error {
  constructor(
    readonly lockPath: string,
    readonly ownerPid: number | undefined,
  ) {
    super(
      `The session is in use by another command${ownerPid === undefined ? '' : ` (pid ${ownerPid})`}: try again when it is done ` +
        `(or remove ${lockPath} if no such command runs).`,
    );
    this.name = 'SessionBusyError';
  }
}

/** How long a command waits for another one holding the session's lock (a refresh, a logout: one request or two). */
const LOCK_WAIT_MS = 30_000;
/** How often the holder touches the lock file, so that waiters see it is alive. */
const LOCK_HEARTBEAT_MS = 2_000;
/**
 * A lock not touched for this long is stale even when a process of its pid runs: its owner is on
 * another machine sharing the home directory and stopped, or died and its pid was given to another.
 */
const LOCK_STALE_MS = 10_000;

/** The lock files this process holds or is taking now (their content): its own pid is live for these only. */
const heldLocks = new Set<string>();

/** A lock file's content: who took it (pid, machine) and a nonce naming this taking of it. */
interface LockOwner {
  pid: number | undefined;
  host: string | undefined;
  text: string | undefined;
  /** Milliseconds since the holder last touched it. */
  age: number;
}

async function lockOwner(path: string): Promise<LockOwner> {
  const [text, info] = await Promise.all([readFile(path, 'utf8').catch(() => undefined), stat(path).catch(() => undefined)]);
  let pid: number | undefined;
  let host: string | undefined;
  try {
    const parsed = JSON.parse(text ?? '') as { pid?: unknown; host?: unknown };
    if (Number.isSafeInteger(parsed.pid) && (parsed.pid as number) > 0) pid = parsed.pid as number;
    if (typeof parsed.host === 'string') host = parsed.host;
  } catch {
    // Not a lock this client wrote: it names no live owner.
  }
  return { pid, host, text: text?.trim(), age: info === undefined ? 0 : Date.now() - info.mtimeMs };
}

/**
 * Whether the lock's owner may still be at work: a process of its pid runs on this machine (for
 * this process's own pid: it holds that very lock), or, on another machine, it touched the lock lately.
 */
function lockIsLive(owner: LockOwner): boolean {
  if (owner.age > LOCK_STALE_MS) return false;
  if (owner.pid === undefined) return false;
  if (owner.host !== hostname()) return true;
  if (owner.pid === process.pid) return owner.text !== undefined && heldLocks.has(owner.text);
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` holding the session's lock, `<path>.lock`, so that of the commands using one session
 * file (in this process or others) one at a time reads, renews or forgets its tokens: a refresh
 * spends the refresh token (it rotates, and one presented twice revokes its whole family), so the
 * next command must read the session again under the lock and use what the first one saved.
 *
 * The lock file names its holder (pid, machine, a nonce) and appears whole or not at all: it is
 * written under a name of its own, then hard-linked to `<path>.lock` (`link` fails when the name
 * exists). A command finding it held waits (up to 30 s, then {@link SessionBusyError}). A lock
 * whose holder is gone (killed, crashed: no process of its pid on this machine) is taken over at
 * once, one not touched for 10 s (its holder touches it every 2 s) too; the takeover runs under a
 * guard only one process holds, which checks again that the lock it removes is the stale one, so
 * of commands finding the same stale lock exactly one takes it.
 *
 * @example
 * ```ts
 * const session = await withSessionLock(path, async () => {
 *   const stored = await loadSession(path);
 *   // … refresh it and save it …
 * });
 * ```
 */
export async function withSessionLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const lockPath = `${path}.lock`;
  const nonce = randomBytes(8).toString('hex');
  const text = JSON.stringify({ pid: process.pid, host: hostname(), nonce });
  const mine = `${lockPath}.${process.pid}.${nonce}`;
  await writeFile(mine, `${text}\n`, { mode: 0o600, flag: 'wx' });
  // Marked before the link: another command of this process that reads it a moment later sees it live.
  heldLocks.add(text);
  const take = () =>
    link(mine, lockPath).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EEXIST') return false;
        throw error;
      },
    );
  let taken = false;
  try {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let pause = 5; !taken; pause = Math.min(pause * 2, 100)) {
      if (await take()) {
        taken = true;
        break;
      }
      const owner = await lockOwner(lockPath);
      if (!lockIsLive(owner)) {
        // Stale (or gone since): removed only if it is still the one found stale, under the guard.
        taken =
          await takeOverStale(lockPath, owner.text, async () => (await lockOwner(lockPath)).text, take);
        if (taken) break;
      } else if (Date.now() > deadline) {
        throw new SessionBusyError(lockPath, owner.pid);
      }
      await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
    }
  } catch (error) {
    heldLocks.delete(text);
    throw error;
  } finally {
    await rm(mine, { force: true });
  }
  // Touched while held: a waiter takes over a lock left untouched, never one in use.
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(lockPath, now, now).catch(() => {});
  }, LOCK_HEARTBEAT_MS);
  heartbeat.unref();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    try {
      // Removed only while it is still this one (a takeover may have replaced it, were this process
      // stalled); still counted as held until then, so another command of this process never takes
      // it for a stale one of its own pid meanwhile.
      if ((await lockOwner(lockPath)).text === text) await rm(lockPath, { force: true });
    } finally {
      heldLocks.delete(text);
    }
  }
}
