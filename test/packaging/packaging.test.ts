/**
 * The packages as a user gets them: `npm pack` tarballs, linted (publint; arethetypeswrong under
 * node16 from ESM and from CommonJS, and bundler: ESM code, which `require()` loads on every Node
 * the engines field admits, and CommonJS declarations for `require`), then installed into a fresh
 * app outside the workspace, used there: type-checked strictly (`exactOptionalPropertyTypes`,
 * `skipLibCheck` off) under `bundler` and `node16`, as ESM and as CommonJS, `require()`d from
 * `.cjs` and `.cts`, and served over HTTP. Three apps: with zod 4, with zod 3, and with every
 * peer at the lowest version our peer ranges admit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floorOf, majorOf, ownErrors } from './support/floors.js';
import { ROOT, publishedPackages } from './support/packages.js';
import { run } from './support/run.js';

const PACKAGES = publishedPackages();
const FIXTURE = new URL('./fixtures/app/', import.meta.url).pathname;
// Kept between runs (node_modules is not committed): a second run installs from it, offline.
const NPM_CACHE = join(ROOT, 'node_modules/.cache/packaging-npm');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const ATTW = join(ROOT, 'node_modules/@arethetypeswrong/cli/dist/index.js');
const INSTALL_TIMEOUT_MS = 240_000;

const peersOf = (name: string) => PACKAGES.find((p) => p.name === name)!.manifest.peerDependencies!;
const CORE_PEERS = peersOf('@trpc-oauth2/core');
const OPENAPI_PEERS = peersOf('@trpc-oauth2/openapi');
/**
 * trpc-to-openapi's own peer (`^5.4.4` at 3.3.0), which a user of the REST face installs: at the
 * floors, the lowest version that range admits on the registry (5.4.4 is not there).
 */
const ZOD_OPENAPI = { range: '^5.4.4', floor: '5.4.5' };

/** The registry packages a user installs beside ours, as our peer ranges ask for them. */
const LATEST = {
  '@trpc/server': CORE_PEERS['@trpc/server']!,
  '@types/node': '^20.19.0',
  'swagger-ui-dist': OPENAPI_PEERS['swagger-ui-dist']!,
  'trpc-to-openapi': OPENAPI_PEERS['trpc-to-openapi']!,
  'zod-openapi': ZOD_OPENAPI.range,
};
/**
 * Each peer at the lowest version our ranges admit, exactly: a range whose floor does not work
 * (an API tRPC added later, a zod without `zod/v4`) fails here, not in a user's app.
 */
const FLOORS = {
  '@trpc/server': floorOf(CORE_PEERS['@trpc/server']!),
  'swagger-ui-dist': floorOf(OPENAPI_PEERS['swagger-ui-dist']!),
  'trpc-to-openapi': floorOf(OPENAPI_PEERS['trpc-to-openapi']!),
  'zod-openapi': ZOD_OPENAPI.floor,
  zod: floorOf(CORE_PEERS.zod!),
};
const APPS = [
  { label: 'zod 4', dependencies: { ...LATEST, zod: majorOf(CORE_PEERS.zod!, 4) }, pinned: {} },
  { label: 'zod 3 (through zod/v4)', dependencies: { ...LATEST, zod: majorOf(CORE_PEERS.zod!, 3) }, pinned: {} },
  { label: 'every peer at its floor', dependencies: { ...FLOORS, '@types/node': LATEST['@types/node'] }, pinned: FLOORS },
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

  it('lets every entry be imported and require()d: the ESM code for both, CommonJS declarations for require', () => {
    const files = new Set(packedFiles.get(name));
    for (const [entry, target] of Object.entries(manifest.exports)) {
      if (entry === './package.json') continue;
      // `require` first (conditions match in order), then what everything else gets (import, bundlers).
      const { require: cjs, ...esm } = target as { require: { types: string; default: string }; types: string; default: string };
      expect(Object.keys(target as object), entry).toEqual(['require', 'types', 'default']);
      expect(Object.keys(cjs), entry).toEqual(['types', 'default']);
      expect(cjs.default, entry).toBe(esm.default);
      expect(cjs.types, entry).toBe(esm.types.replace(/\.d\.ts$/, '.d.cts'));
      for (const file of [esm.types, esm.default, cjs.types]) expect(files.has(file.slice(2)), `${entry}: ${file}`).toBe(true);
    }
    // Each declaration file has its CommonJS twin: a .d.cts imports .d.cts files only.
    const declarations = [...files].filter((file) => file.endsWith('.d.ts'));
    expect(declarations.length).toBeGreaterThan(0);
    for (const file of declarations) expect(files.has(file.replace(/\.d\.ts$/, '.d.cts')), file).toBe(true);
  });

  it('asks for ranges of its peers, never one exact version, with the floors of its siblings', () => {
    for (const [peer, range] of Object.entries(manifest.peerDependencies ?? {})) expect(range, peer).toMatch(/^\^|\|\|/);
    // One floor for a peer all packages share: the floors app installs one version of it.
    for (const peer of ['@trpc/server', 'zod']) {
      if (manifest.peerDependencies?.[peer]) expect(manifest.peerDependencies[peer], peer).toBe(CORE_PEERS[peer]);
    }
  });

  it('passes publint', async () => {
    const tarball = await readFile(tarballs.get(name)!);
    const { messages, pkg } = await publint({ pack: { tarball: new Uint8Array(tarball).buffer }, level: 'suggestion', strict: true });
    expect(messages.map((message) => formatMessage(message, pkg))).toEqual([]);
  });

  it('passes arethetypeswrong under node16 (from ESM and from CommonJS), bundler and node10', async () => {
    const result = await run(process.execPath, [ATTW, tarballs.get(name)!, '--format', 'json'], { cwd: work, stdoutFile: join(work, `attw-${name.replace('/', '-')}.json`) });
    const { analysis } = JSON.parse(result.stdout) as { analysis: AttwAnalysis };
    for (const [entry, { resolutions }] of Object.entries(analysis.entrypoints)) {
      if (entry === './package.json') continue;
      // require gets CommonJS declarations (typed against tRPC's CommonJS ones, as the app is); import, ESM.
      expect(resolutions['node16-cjs'].resolution?.fileName, entry).toMatch(/\.d\.cts$/);
      expect(resolutions['node16-esm'].resolution?.fileName, entry).toMatch(/\.d\.ts$/);
      expect(resolutions.bundler.resolution?.fileName, entry).toMatch(/\.d\.ts$/);
      // node10 (TypeScript's default for `module: commonjs` before 6.0) reads no exports map:
      // `main` and `typesVersions` give it the ESM declarations, which require() of ESM makes right.
      expect(resolutions.node10.resolution?.fileName, entry).toMatch(/\.d\.ts$/);
    }
    // What remains is what require() of ESM (Node 20.19 and later) makes right: attw models a Node
    // without it, where a require of ESM fails (CJSResolvesToESM) and CommonJS declarations over
    // ESM code misdescribe it (FalseCJS); here require() returns the ES module's namespace, which
    // the .d.cts declares.
    const unexpected = analysis.problems.filter(
      (problem) =>
        !(problem.kind === 'CJSResolvesToESM' && problem.resolutionKind === 'node16-cjs') &&
        !(problem.kind === 'FalseCJS' && /\.d\.cts$/.test(problem.typesFileName ?? '') && /\.js$/.test(problem.implementationFileName ?? '')),
    );
    expect(unexpected).toEqual([]);
  });
});

describe.each(APPS)('a fresh app outside the workspace, with $label', ({ label, dependencies, pinned }) => {
  let app: string;
  let install: { code: number | null; stdout: string; stderr: string };

  beforeAll(async () => {
    app = join(work, `app-${label.replace(/\W+/g, '-')}`);
    await mkdir(app);
    await cp(FIXTURE, app, { recursive: true });
    const ours = Object.fromEntries(PACKAGES.map((p) => [p.name, `file:${tarballs.get(p.name)}`]));
    await writeFile(
      join(app, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { ...ours, ...dependencies } }, null, 2),
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
    const installed = JSON.parse(tree.stdout) as { dependencies: Record<string, { version: string }> };
    for (const [peer, version] of Object.entries(pinned)) expect(installed.dependencies[peer]?.version, peer).toBe(version);
  });

  it('type-checks strictly under moduleResolution bundler, node16 (ESM and CommonJS) and node10 (a scope typo does not compile)', async () => {
    // Both with exactOptionalPropertyTypes on and skipLibCheck off: every declaration we ship is
    // checked (bundler: every entry and the jwt README example; node16: the .cts requires every
    // entry). node16, not nodenext: it allows a CommonJS file less (no require() of ESM), and
    // resolves as nodenext does. What third-party declarations need and an app does not install
    // (express, next, …) is not ours to check. node16 also emits what the tests below run.
    // node10 (no exports map: `main` and `typesVersions`) type-checks every entry too.
    const [bundler, node16, node10] = await Promise.all(
      ['tsconfig.bundler.json', 'tsconfig.node16.json', 'tsconfig.node10.json'].map((project) => run(process.execPath, [TSC, '-p', project], { cwd: app })),
    );
    const errors = Object.fromEntries(
      Object.entries({ bundler: bundler!, node16: node16!, node10: node10! }).map(([project, { code, stdout, stderr }]) => {
        // A failed tsc names its errors: one that fails without any (a crash) is no pass.
        expect(code === 0 || /\berror TS\d+/.test(stdout), `${project}: ${stdout}${stderr}`).toBe(true);
        return [project, ownErrors(stdout + stderr)];
      }),
    );
    expect(errors).toEqual({ bundler: [], node16: [], node10: [] });
  }, 120_000);

  it('require()s every entry from plain CommonJS and from a type-checked .cts, whose CommonJS router gets the readers\' ctx', async () => {
    const plain = await run(process.execPath, ['src/plain.cjs'], { cwd: app });
    expect(plain.code, plain.stderr).toBe(0);
    expect(Object.values(JSON.parse(plain.stdout) as Record<string, string>)).toEqual(Array(10).fill('function'));
    const typed = await run(process.execPath, ['dist/typed.cjs'], { cwd: app });
    expect(typed.code, typed.stderr).toBe(0);
    expect(JSON.parse(typed.stdout)).toEqual({
      me: { token: 'token-of-alice', scopes: ['me'] },
      security: [{ OAuth2PasswordBearer: ['me'] }],
      entries: true,
    });
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

/** What `attw --format json` reports, as far as the test reads it. */
interface AttwAnalysis {
  entrypoints: Record<string, { resolutions: Record<'node16-cjs' | 'node16-esm' | 'bundler' | 'node10', { resolution?: { fileName: string } }> }>;
  problems: { kind: string; resolutionKind?: string; typesFileName?: string; implementationFileName?: string }[];
}
