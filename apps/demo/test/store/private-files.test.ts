import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// Servers started together on one data directory each create a key file if it is missing (the
// two-instance tests and soak do): one creation wins, and no process reads a file another is still
// writing. Separate processes, as the servers are, through the built module.
const MODULE = new URL('../../dist/store/private-files.js', import.meta.url).href;
const START = `
  const { loadOrCreatePrivateJson } = await import(${JSON.stringify(MODULE)});
  const check = (stored) => { if (typeof stored?.id !== 'number') throw new TypeError('not a key file'); return stored.id; };
  try {
    console.log(JSON.stringify({ id: await loadOrCreatePrivateJson(process.argv[1], check, async () => ({ id: process.pid, padding: 'x'.repeat(2_000_000) })) }));
  } catch (error) {
    console.log(JSON.stringify({ error: error.message }));
  }`;

const start = (path: string) =>
  new Promise<{ id?: number; error?: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', START, path], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', () => resolve(JSON.parse(output)));
  });

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('loadOrCreatePrivateJson', () => {
  it('gives 8 processes starting at once the one file one of them created, whole, in each of 8 rounds', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'private-files-'));
    dirs.push(dir);
    for (let round = 0; round < 8; round++) {
      const path = join(dir, `keys-${round}.json`);
      const answers = await Promise.all(Array.from({ length: 8 }, () => start(path)));
      expect(answers.filter((answer) => answer.error !== undefined), `round ${round}`).toEqual([]);
      expect(new Set(answers.map((answer) => answer.id)).size, `round ${round}`).toBe(1);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
    }
    // Nothing is left beside the files themselves.
    expect((await readdir(dir)).sort()).toEqual(Array.from({ length: 8 }, (_, round) => `keys-${round}.json`).sort());
  }, 120_000);
});
