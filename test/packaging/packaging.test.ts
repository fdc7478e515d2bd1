/**
 * The packages as a user gets them: `npm pack` tarballs, linted (publint, arethetypeswrong with
 * the esm-only profile: ESM, which `require()` loads on every Node the engines field admits),
 * then installed into a fresh app outside the workspace, once with each major of zod, and used
 * there: type-checked under `bundler` and `nodenext`, `require()`d from `.cjs` and `.cts`, and
 * served over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, publishedPackages } from './support/packages.js';
import { run } from './support/run.js';

const PACKAGES = publishedPackages();
const FIXTURE = new URL('./fixtures/app/', import.meta.url).pathname;
// Kept between runs (node_modules is not committed): a second run installs from it, offline.
const NPM_CACHE = join(ROOT, 'node_modules/.cache/packaging-npm');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const ATTW = join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js');
const INSTALL_TIMEOUT_MS = 240_000;

/** The registry packages a user installs beside ours; zod is chosen per app. */
const REGISTRY_DEPENDENCIES = {
  '@trpc/server': '^11.1.0',
  '@types/node': '^20.19.0',
  'swagger-ui-dist': '^5.0.0',
  'trpc-to-openapi': '^3.3.0',
  'zod-openapi': '^5.4.4',
};
const ZOD_MAJORS = [
  { label: 'zod 4', range: '^4.0.0' },
  { label: 'zod 3 (through zod/v4)', range: '^3.25.76' },
];

let work: string;
const tarballs = new Map<string, string>();
const packedFiles = new Map<string, string[]>();

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'trpc-oauth2-packaging-'));
  const args = ['pack', '--json', '--pack-destination', work, ...PACKAGES.flatMap((p) => ['-w', p.dir])];
  const packed = await run('npm', args, { cwd: ROOT });
  expect(packed.code, packed.stderr).toBe(0);
  for (const entry of JSON.parse(packed.stdout) as { name: string; filename: string; files: { path: string }[] }[]) {
    tarballs.set(entry.name, join(work, entry.filename));
    packedFiles.set(entry.name, entry.files.map((file) => file.path));
  }
}, INSTALL_TIMEOUT_MS);
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe.each(PACKAGES)('the tarball of $name', ({ name, manifest }) => {
  it('ships a README, the LICENSE and what a registry page shows', () => {
    expect(packedFiles.get(name)).toEqual(expect.arrayContaining(['README.md', 'LICENSE', 'package.json']));
    expect(manifest).toMatchObject({
      license: 'MIT',
      description: expect.any(String),
      keywords: expect.arrayContaining(['trpc', 'oauth2']),
      homepage: expect.stringMatching(/^https:\/\//),
      repository: { type: 'git', url: expect.stringMatching(/^git\+https:\/\//), directory: expect.stringMatching(/^packages\//) },
      bugs: { url: expect.stringMatching(/^https:\/\//) },
      engines: { node: '>=20.19' },
    });
  });

  it('lets every entry be imported and require()d: a `default` condition beside `types`', () => {
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (entry === './package.json') continue;
      expect(Object.keys(target as object), entry).toEqual(['types', 'default']);
    }
  });

  it('asks for ranges of its peers, never one exact version', () => {
    for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) expect(range, peer).toMatch(/^\^|\|\|/);
  });

  it('passes publint', async () => {
    const tarball = await readFile(tarballs.get(name)!);
    const { messages, pkg } = await publint({ pack: { tarball: new Uint8Array(tarball).buffer }, level: 'suggestion', strict: true });
    expect(messages.map((message) => formatMessage(message, pkg))).toEqual([]);
  });

  it('passes arethetypeswrong (esm-only profile)', async () => {
    const result = await run(process.execPath, [ATTW, tarballs.get(name)!, '--profile', 'esm-only', '--format', 'ascii', '--no-color'], { cwd: work });
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });
});

describe.each(ZOD_MAJORS)('a fresh app outside the workspace, with $label', ({ range }) => {
  let app: string;
  let install: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    app = join(work, `app-zod-${range.replace(/\W/g, '')}`);
    await mkdir(app);
    await cp(FIXTURE, app, { recursive: true });
    const ours = Object.fromEntries(PACKAGES.map((p) => [p.name, `file:${tarballs.get(p.name)}`]));
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { ...ours, ...REGISTRY_DEPENDENCIES, zod: range } }, null, 2),
    );
    // No workspace links: a plain install from the tarballs and the registry. Install scripts are
    // not run (swagger-ui-dist's dependency has one); nothing here needs them.
    const flags = ['--cache', NPM_CACHE, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel', 'warn'];
    install = await run('npm', ['install', ...flags], { cwd: app, env: { npm_config_workspaces: '' } });
  }, INSTALL_TIMEOUT_MS);

  it('installs without a peer dependency warning', async () => {
    expect(install.code, install.stderr).toBe(0);
    const warnings = `${install.stdout}\n${install.stderr}`.split('\n').filter((line) => /peer|ERESOLVE/i.test(line));
    expect(warnings).toEqual([]);
    const tree = await run('npm', ['ls', '--all', '--json'], { cwd: app });
    expect(tree.code, tree.stdout.slice(0, 2_000)).toBe(0);
  });

  it('type-checks under moduleResolution bundler and nodenext (a scope typo does not compile)', async () => {
    for (const project of ['tsconfig.bundler.json', 'tsconfig.nodenext.json']) {
      const result = await run(process.execPath, [TSC, '-p', project], { cwd: app });
      expect(result.code, `${project}\n${result.stdout}${result.stderr}`).toBe(0);
    }
  }, 120_000);

  it('require()s every entry from plain CommonJS and from a type-checked .cts', async () => {
    const plain = await run(process.execPath, ['src/plain.cjs'], { cwd: app });
    expect(plain.code, plain.stderr).toBe(0);
    expect(Object.values(JSON.parse(plain.stdout) as Record<string, string>)).toEqual(Array(9).fill('function'));
    const typed = await run(process.execPath, ['dist/typed.cjs'], { cwd: app });
    expect(typed.code, typed.stderr).toBe(0);
    expect(JSON.parse(typed.stdout)).toEqual({ scheme: 'oauth2', generate: 'function' });
  });

  describe('over HTTP', () => {
    let server: ChildProcess;
    let base: string;
    beforeAll(async () => {
      server = spawn(process.execPath, ['dist/app.js'], { cwd: app, stdio: ['ignore', 'pipe', 'inherit'] });
      const [line] = await createInterface({ input: server.stdout! })[Symbol.asyncIterator]().next().then((r) => [r.value as string]);
      base = `http://127.0.0.1:${(JSON.parse(line!) as { port: number }).port}`;
    }, 30_000);
    afterAll(() => {
      server?.kill();
    });

    it('issues a token from a urlencoded form and answers the protected route with it', async () => {
      const token = await fetch(`${base}/api/token`, { method: 'POST', body: new URLSearchParams({ username: 'alice', password: 'x' }) });
      expect(token.status).toBe(200);
      expect(await token.json()).toEqual({ access_token: 'token-of-alice', token_type: 'bearer' });
      const me = await fetch(`${base}/api/me`, { headers: { authorization: 'Bearer token-of-alice' } });
      expect(await me.json()).toEqual({ token: 'token-of-alice', scopes: ['me'] });
    });

    it('refuses an anonymous call with 401, the Bearer challenge and no stack trace', async () => {
      const me = await fetch(`${base}/api/me`);
      expect(me.status).toBe(401);
      expect(me.headers.get('www-authenticate')).toBe('Bearer');
      const body = await me.text();
      expect(JSON.parse(body)).toMatchObject({ message: 'Not authenticated', code: 'UNAUTHORIZED' });
      expect(body).not.toContain('stack');
    });

    it('serves the document and Swagger UI with safe headers', async () => {
      const document = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security?: unknown }>> };
      expect(document.paths['/me']!.get!.security).toEqual([{ OAuth2PasswordBearer: ['me'] }]);
      const page = await fetch(`${base}/docs`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect((await fetch(`${base}/docs/swagger-ui-bundle.js`)).status).toBe(200);
      expect((await fetch(`${base}/docs/oauth2-redirect.html`)).status).toBe(200);
    });
  });
});
