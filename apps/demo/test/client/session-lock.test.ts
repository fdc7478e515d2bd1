/**
 * The session lock of the command-line client (apps/demo/README.md, the CLI): one holder at a
 * time, whether the commands contending for it run in one process or in several, and when a
 * lock is released while others wait for it (a released lock must never be taken for a stale one).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { withSessionLock } from '../../src/client/session.js';

const HOLDER = fileURLToPath(new URL('./support/lock-holder.mjs', import.meta.url));
// The built module, as the CLI's processes run it (`npm test` builds first).
const SESSION = fileURLToPath(new URL('../../dist/client/session.js', import.meta.url));

const scratch = () => mkdtemp(join(tmpdir(), 'session-lock-'));

it('is held by one command at a time among many of one process', async () => {
  let worst = 0;
  for (let round = 0; round < 4; round++) {
    const dir = await scratch();
    let holders = 0;
    await Promise.all(
      Array.from({ length: 30 }, () =>
        withSessionLock(join(dir, 'session.json'), async () => {
          holders++;
          worst = Math.max(worst, holders);
          await new Promise((resolve) => setTimeout(resolve, 5));
          holders--;
        }),
      ),
    );
    await rm(dir, { recursive: true, force: true });
  }
  expect(worst).toBe(1);
}, 60_000);

it('is held by one process at a time among several taking it again and again', async () => {
  const dir = await scratch();
  const path = join(dir, 'session.json');
  const outputs = await Promise.all(
    Array.from(
      { length: 8 },
      () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(process.execPath, [HOLDER, SESSION, path, '80']);
          let out = '';
          child.stdout.on('data', (chunk: Buffer) => (out += chunk));
          child.on('error', reject);
          child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`holder exited ${code}`))));
        }),
    ),
  );
  await rm(dir, { recursive: true, force: true });
  expect(outputs.map((out) => (JSON.parse(out) as { overlaps: number }).overlaps)).toEqual(Array(8).fill(0));
}, 90_000);
