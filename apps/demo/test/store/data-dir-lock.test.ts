import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../../src/store/data-dir-lock.js';

// The data directory's lock under contention: however many starts find the same stale lock at
// once, exactly one takes it over and the others are told the directory is in use.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trpc-oauth2-lock-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The pid of a process that has exited: nothing runs under it (until the system reuses it). */
const deadPid = () => spawnSync('true').pid!;

describe('lockDataDir', () => {
  it('gives a stale lock to exactly one of the starts racing for it, in each of 30 trials', async () => {
    const CONTENDERS = 6;
    for (let trial = 0; trial < 30; trial += 1) {
      const dataDir = join(dir, `trial-${trial}`);
      await rm(dataDir, { recursive: true, force: true });
      await mkdir(dataDir);
      await writeFile(join(dataDir, LOCK_FILE), `${deadPid()}\n`);
      const outcomes = await Promise.allSettled(Array.from({ length: CONTENDERS }, () => lockDataDir(dataDir)));
      const owners = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      expect(owners, `trial ${trial}`).toHaveLength(1);
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(DataDirInUseError);
      }
      await (owners[0] as PromiseFulfilledResult<() => Promise<void>>).value();
      // Nothing left behind: no lock, no half-written file, no takeover guard.
      expect(await readdir(dataDir)).toEqual([]);
    }
  }, 60_000);

  it('gives a free directory to exactly one of the starts racing for it', async () => {
    const dataDir = join(dir, 'free');
    await mkdir(dataDir);
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => lockDataDir(dataDir)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
  });
});

describe('a release racing with starts in the same process', () => {
  it('lets at most one of the starts have the directory, in each of 60 trials', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'data-dir-release-'));
    try {
      let worst = 0;
      for (let trial = 0; trial < 60; trial += 1) {
        const release = await lockDataDir(dir);
        const [, ...starts] = await Promise.allSettled([release(), lockDataDir(dir), lockDataDir(dir), lockDataDir(dir)]);
        const holders = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
        for (const start of starts) if (start.status === 'rejected') expect(start.reason).toBeInstanceOf(DataDirInUseError);
        worst = Math.max(worst, holders.length);
        await Promise.all(holders.map((release) => release()));
      }
      expect(worst).toBeLessThanOrEqual(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
