import { spawn } from 'node:child_process';
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_TIMEOUT_MS, startTestDemo, tempDataDir } from '../support/demo-server.js';
import { bearer, login, postToken, request } from '../support/http.js';

// One process per data directory, private to its owner, and what the throttle counted kept
// across a restart. See docs/contract.md#token-responses.
const dirs: string[] = [];
const newDir = async () => {
  const dir = await tempDataDir();
  dirs.push(dir);
  return dir;
};
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** Every path under `dir` whose mode lets a user other than the owner read, write or enter it. */
async function openToOthers(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (path: string) => {
    const stats = await lstat(path);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) found.push(`${path} ${(stats.mode & 0o777).toString(8)}`);
    if (stats.isDirectory()) for (const entry of await readdir(path)) await walk(join(path, entry));
  };
  await walk(dir);
  return found;
}

describe('the data directory', () => {
  it('refuses a second server on a live data directory with a clear message; the first keeps serving', async () => {
    const dataDir = await newDir();
    const first = await startTestDemo(dataDir);
    try {
      await expect(startTestDemo(dataDir)).rejects.toThrow(`${dataDir} is in use by another demo server (pid ${process.pid})`);
      const tokens = await login(first.url, 'alice', 'wonderland');
      expect((await request(`${first.url}/api/users/me`, { headers: bearer(tokens.access_token) })).status).toBe(200);
    } finally {
      await first.stop();
    }
    // Stopped, it gives the directory back.
    const again = await startTestDemo(dataDir);
    await again.stop();
  }, 3 * SERVER_TIMEOUT_MS);

  it('refuses a second process while the first lives, and is not blocked by its lock once it is killed with SIGKILL', async () => {
    const dataDir = await newDir();
    const main = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url));
    const child = spawn(process.execPath, [main], { env: { ...process.env, DATA_DIR: dataDir, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('listening on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${out}`)));
    });
    await expect(startTestDemo(dataDir)).rejects.toThrow(`${dataDir} is in use by another demo server (pid ${child.pid})`);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const restarted = await startTestDemo(dataDir);
    try {
      expect((await login(restarted.url, 'bob', 'builder')).scope).toBe('me');
    } finally {
      await restarted.stop();
    }
  }, 3 * SERVER_TIMEOUT_MS);

  it('holds nothing other users may read or write (directories 0700, files 0600), while serving and after', async () => {
    const dataDir = await newDir();
    const demo = await startTestDemo(dataDir);
    try {
      const tokens = await login(demo.url, 'alice', 'wonderland');
      await postToken(demo.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
      expect(await openToOthers(dataDir)).toEqual([]);
    } finally {
      await demo.stop();
    }
    expect(await openToOthers(dataDir)).toEqual([]);
  }, 3 * SERVER_TIMEOUT_MS);
});

describe('the login throttle across a restart', () => {
  it('still refuses a locked username after the server restarts on the same data directory', async () => {
    const dataDir = await newDir();
    const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
    const options = {
      loginThrottle: { username: { maxFailures: 2, windowSeconds: 900 }, address: { maxFailures: 1_000, windowSeconds: 900 }, maxEntries: 100 },
      clock: () => clock.now,
    };
    const first = await startTestDemo(dataDir, options);
    try {
      for (let i = 0; i < 2; i += 1) expect((await postToken(first.url, { username: 'bob', password: 'guess' })).status).toBe(400);
      expect((await postToken(first.url, { username: 'bob', password: 'builder' })).status).toBe(429);
    } finally {
      await first.stop();
    }
    clock.now += 60_000;
    const second = await startTestDemo(dataDir, options);
    try {
      const refused = await postToken(second.url, { username: 'bob', password: 'builder' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('840');
      clock.now += 840_000;
      expect((await postToken(second.url, { username: 'bob', password: 'builder' })).status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 3 * SERVER_TIMEOUT_MS);
});
