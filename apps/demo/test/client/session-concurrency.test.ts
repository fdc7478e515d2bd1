/**
 * One session used by several commands at once, against the real server on 127.0.0.1: commands
 * run in this process (at once, deterministically interleaved) and as real processes of the built
 * client (`dist/client/main.js`, as `npm run client` runs it). The refresh token rotates and a
 * spent one presented again revokes its whole family, so two commands refreshing the same session
 * must not both spend the same refresh token; a logout must not be undone by a refresh saving
 * tokens back; a reader never finds the session missing or half-written while it is saved; and a
 * command killed while it held the session's lock does not block the next one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLI_CREDENTIALS, runCli } from '../../src/client/cli.js';
import { demoClient } from '../../src/client/demo-client.js';
import { loadSession, saveSession, type ClientSession } from '../../src/client/session.js';
import { demoForThisFile, tempDataDir, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS * 3 });

// Access tokens that live three seconds: a `watch` refreshes several times within one test.
const TOKEN_TTL_SECONDS = 3;
const demo = demoForThisFile({ accessTokenTtlSeconds: TOKEN_TTL_SECONDS });
const MAIN = fileURLToPath(new URL('../../dist/client/main.js', import.meta.url));

let dir: string;
const children = new Set<ChildProcess>();
beforeAll(async () => {
  dir = await tempDataDir();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Runs one command in this process on the session file `path`: its exit code and what it printed. */
async function cli(args: string[], path: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { out: (line) => out.push(line), err: (line) => err.push(line), env: { DEMO_URL: demo.url, DEMO_SESSION: path }, openBrowser: () => {} });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Starts one command as a process of the built client on the session file `path`. */
function spawnCli(args: string[], path: string) {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, DEMO_URL: demo.url, DEMO_SESSION: path }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, out: out.trim(), err: err.trim() }));
  });
  return { child, done };
}

const login = async (path: string) => expect(await cli(['login', '--user', 'alice', '--password', 'wonderland'], path)).toMatchObject({ code: 0, err: '' });
const read = async (path: string): Promise<ClientSession> => JSON.parse(await readFile(path, 'utf8'));
/** The session still works: a call with its access token, then a refresh with its refresh token. */
async function expectUsable(path: string) {
  const me = await cli(['call', 'users.me'], path);
  expect(me.err).toBe('');
  expect(JSON.parse(me.out).username).toBe('alice');
  expect(await cli(['refresh'], path)).toMatchObject({ code: 0, err: '' });
}
const REFRESHED = /^Refreshed: new tokens for scope "me items", valid for \d+ s\.$/;

describe('one session, several commands at once', () => {
  it('two refreshes at once in one process both succeed, and the refresh token family survives', async () => {
    const path = join(dir, 'two-refreshes.json');
    await login(path);
    const first = await read(path);
    for (let round = 0; round < 3; round += 1) {
      const results = await Promise.all([cli(['refresh'], path), cli(['refresh'], path)]);
      for (const result of results) {
        expect(result.err, `round ${round}`).toBe('');
        expect(result.code, `round ${round}`).toBe(0);
        expect(result.out).toMatch(REFRESHED);
      }
    }
    expect((await read(path)).refreshToken).not.toBe(first.refreshToken);
    await expectUsable(path);
  });

  it('refreshes by several processes at once all succeed, and the session stays usable', async () => {
    const path = join(dir, 'processes.json');
    await login(path);
    for (let round = 0; round < 2; round += 1) {
      const results = await Promise.all([...Array.from({ length: 4 }, () => spawnCli(['refresh'], path).done), spawnCli(['call', 'users.me'], path).done]);
      for (const [index, result] of results.entries()) {
        expect(result.err, `round ${round}, process ${index}`).toBe('');
        expect(result.code, `round ${round}, process ${index}`).toBe(0);
      }
      for (const result of results.slice(0, 4)) expect(result.out).toMatch(REFRESHED);
    }
    await expectUsable(path);
    // Nothing left beside the session: no lock, no temporary file.
    expect(await readdir(dir).then((names) => names.filter((name) => name.startsWith('processes.json')))).toEqual(['processes.json']);
  });

  it('a watch keeps going while other commands refresh the same session', async () => {
    const path = join(dir, 'watch.json');
    await login(path);
    const session = await read(path);
    const existing = JSON.parse((await cli(['call', 'users.items'], path)).out) as unknown[];
    // Alice adds items through a login of her own (not the session's).
    const auth = demoClient(demo.url);
    let tokens = await auth.auth.token.mutate({ username: 'alice', password: 'wonderland', scope: 'me items', ...CLI_CREDENTIALS });
    const adder = demoClient(demo.url, () => tokens.access_token);
    const titles = Array.from({ length: 10 }, (_, i) => `concurrent item ${i + 1}`);
    const watching = cli(['watch', '--count', String(existing.length + titles.length)], path);
    const refreshes: Promise<{ code: number; err: string }>[] = [];
    for (const title of titles) {
      // Another command refreshes the session every ~0.8 s: more often than the watch does.
      refreshes.push(cli(['refresh'], path));
      await new Promise((resolve) => setTimeout(resolve, 400));
      tokens = await auth.auth.token.mutate({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, ...CLI_CREDENTIALS });
      await adder.users.addItem.mutate({ title });
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    const watched = await watching;
    expect(watched.err).toBe('');
    expect(watched.code).toBe(0);
    expect(watched.out.split('\n').filter((line) => line.startsWith('item ')).slice(existing.length)).toEqual(titles.map((title) => expect.stringContaining(`: ${title}`)));
    for (const refreshed of await Promise.all(refreshes)) expect(refreshed).toMatchObject({ code: 0, err: '' });
    expect((await read(path)).refreshToken).not.toBe(session.refreshToken);
    await expectUsable(path);
  });

  it('a logout is never undone by a refresh running at the same time', async () => {
    for (let round = 0; round < 4; round += 1) {
      const path = join(dir, `logout-${round}.json`);
      await login(path);
      // The logout starts a little after the refresh, by a varying delay.
      const refreshing = cli(['refresh'], path);
      await new Promise((resolve) => setTimeout(resolve, round * 4));
      const logout = await cli(['logout'], path);
      const refresh = await refreshing;
      expect(logout, `round ${round}`).toMatchObject({ code: 0, err: '' });
      // Either the refresh came first (and the logout revoked its new tokens), or it found the session gone.
      if (refresh.code !== 0) expect(refresh.err, `round ${round}`).toMatch(/^(Logged out meanwhile|Not logged in)/);
      expect(await loadSession(path), `round ${round}: the session is back after the logout`).toBeNull();
      expect((await cli(['status'], path)).out).toBe('Not logged in.');
    }
  });

  it('a process reading the session while it is saved again and again never finds it missing or half-written', async () => {
    const path = join(dir, 'saves.json');
    await login(path);
    const session = await read(path);
    const stop = join(dir, 'saves.stop');
    // A reader in a process of its own: as fast as it can, until told to stop.
    const READER = `
      const { readFileSync, existsSync } = await import('node:fs');
      const [path, stop] = process.argv.slice(-2);
      let reads = 0, missing = 0, partial = 0;
      for (let i = 0; ; i += 1) {
        if (i % 50 === 0 && existsSync(stop)) break;
        try {
          const session = JSON.parse(readFileSync(path, 'utf8'));
          if (typeof session.accessToken !== 'string') partial += 1;
        } catch (error) {
          if (error.code === 'ENOENT') missing += 1; else partial += 1;
        }
        reads += 1;
      }
      console.log(JSON.stringify({ reads, missing, partial }));`;
    const reader = spawn(process.execPath, ['--input-type=module', '-e', READER, path, stop], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(reader);
    let report = '';
    reader.stdout!.on('data', (chunk: Buffer) => (report += chunk.toString()));
    const readerDone = new Promise((resolve) => reader.once('close', resolve));
    // And one in this process, between the saves' steps.
    let inProcessMissing = 0;
    let saving = true;
    const inProcess = (async () => {
      while (saving) if ((await loadSession(path)) === null) inProcessMissing += 1;
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 200; i += 1) await saveSession(path, { ...session, scope: `me items ${'x'.repeat(i * 100)}` });
    saving = false;
    await inProcess;
    await writeFile(stop, '');
    await readerDone;
    const { reads, missing, partial } = JSON.parse(report) as { reads: number; missing: number; partial: number };
    expect(reads).toBeGreaterThan(100);
    expect({ missing, partial, inProcessMissing }).toEqual({ missing: 0, partial: 0, inProcessMissing: 0 });
    // Still the owner's only, in a directory of the owner's only.
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await loadSession(path))?.accessToken).toBe(session.accessToken);
  });

  it('a command killed while it held the session lock does not block the next one', async () => {
    const path = join(dir, 'killed.json');
    await login(path);
    const session = await read(path);
    // A server that never answers: the refresh waits there, holding the session's lock.
    const seen: string[] = [];
    const silent: Server = createServer((req) => seen.push(`${req.method} ${req.url}`));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      await writeFile(path, JSON.stringify({ ...session, url: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` }), { mode: 0o600 });
      const stuck = spawnCli(['refresh'], path);
      await vi.waitFor(() => expect(seen).toContain('POST /api/token'), { timeout: 10_000, interval: 20 });
      // The refresh holds a lock on the session while it is at the server.
      expect((await readdir(dir)).filter((name) => name.startsWith('killed.json')).length).toBeGreaterThan(1);
      stuck.child.kill('SIGKILL');
      expect((await stuck.done).signal).toBe('SIGKILL');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
    // The same session, at the real server again; its refresh token never reached a server.
    await writeFile(path, JSON.stringify(session), { mode: 0o600 });
    const started = Date.now();
    const refreshed = spawnCli(['refresh'], path);
    const result = await refreshed.done;
    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toMatch(REFRESHED);
    // Taken over at once: its owner is gone, no waiting for it to age.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await readdir(dir)).filter((name) => name.startsWith('killed.json'))).toEqual(['killed.json']);
    await expectUsable(path);
  });
});
