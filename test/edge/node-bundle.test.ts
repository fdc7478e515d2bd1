/**
 * The Swagger UI handler of `@trpc-oauth2/openapi/docs/node` in an application bundled for Node as
 * CommonJS (esbuild's default output for `--platform=node`), where `import.meta` is empty: it still
 * finds the installed `swagger-ui-dist` (from the working directory) and serves its files.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';

/** The workspace's root, whose node_modules hold swagger-ui-dist. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Top-level await is not CommonJS: the app reads in an async function, as a CommonJS app would.
const APP = `
import { swaggerUiAssets } from '@trpc-oauth2/openapi/docs/node';
void (async () => {
  const css = await swaggerUiAssets()('swagger-ui.css');
  console.log(JSON.stringify({ bytes: css.byteLength }));
})();
`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docs-cjs-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

it('serves the files of swagger-ui-dist from a CommonJS bundle', async () => {
  const entry = join(dir, 'app.ts');
  await writeFile(entry, APP);
  const bundle = join(dir, 'app.cjs');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile: bundle,
    nodePaths: [join(ROOT, 'node_modules')],
    // swagger-ui-dist stays installed beside the app, as a bundled server keeps its assets' package.
    external: ['swagger-ui-dist'],
    logLevel: 'silent',
  });
  // esbuild says import.meta is empty in this format: the case the handler must survive.
  expect(result.warnings.map((warning) => warning.text).join('\n')).toMatch(/import\.meta/);
  const { stdout } = await promisify(execFile)(process.execPath, [bundle], { cwd: ROOT });
  expect(JSON.parse(stdout)).toEqual({ bytes: expect.any(Number) as unknown });
  expect((JSON.parse(stdout) as { bytes: number }).bytes).toBeGreaterThan(10_000);
});
