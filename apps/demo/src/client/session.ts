import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
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
  /** Seconds since the epoch. */
  expiresAt: number;
  /**
   * The DPoP key the tokens are bound to (RFC 9449), kept for the session: every call, refresh
   * and stream signs its proof with it. Absent: bearer tokens.
   */
  dpop?: StoredDPoPKey;
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
 * Saves the session, readable by its owner only (it holds tokens).
 *
 * @example
 * ```ts
 * await saveSession(sessionPath(), session);
 * ```
 */
export async function saveSession(path: string, session: ClientSession): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await rm(path, { force: true });
  await writeFile(path, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
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
