import { readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { require: { types: string; default: string }; types: string; default: string }>;
};

/** Every specifier a built module imports or re-exports (static and dynamic). */
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The built modules reached from `entry` through relative imports, with the bare specifiers they import. */
function importGraph(entry: string) {
  const modules = new Map<string, string>();
  const external = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (modules.has(file)) continue;
    const code = readFileSync(file, 'utf8');
    modules.set(file, code);
    for (const match of code.matchAll(SPECIFIER)) {
      const specifier = (match[1] ?? match[2])!;
      if (specifier.startsWith('.')) pending.push(join(dirname(file), specifier));
      else external.add(specifier);
    }
  }
  return { modules, external: [...external].sort() };
}

/** The Node APIs a module uses: `node:` and bare built-in imports, and `Buffer` (comments aside). */
function nodeApis(external: readonly string[], modules: Map<string, string>): string[] {
  const found = external.filter((specifier) => specifier.startsWith('node:') || isBuiltin(specifier));
  for (const [file, code] of modules) {
    const withoutComments = code.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    if (/\bBuffer\b/.test(withoutComments)) found.push(`Buffer in ${relative(root, file)}`);
  }
  return found;
}

const built = (subpath: string) => {
  const target = manifest.exports[subpath];
  if (typeof target !== 'object') throw new Error(`no entry ${subpath}`);
  return join(root, target.default);
};

describe('the entries of package.json', () => {
  it('are the root, the adapters and the docs, each with types and a default, and CommonJS types for require()', () => {
    expect(manifest.exports).toEqual({
      '.': { require: { types: './dist/index.d.cts', default: './dist/index.js' }, types: './dist/index.d.ts', default: './dist/index.js' },
      './adapters/fetch': { require: { types: './dist/adapters/fetch.d.cts', default: './dist/adapters/fetch.js' }, types: './dist/adapters/fetch.d.ts', default: './dist/adapters/fetch.js' },
      './adapters/trpc-fetch': { require: { types: './dist/adapters/trpc-fetch.d.cts', default: './dist/adapters/trpc-fetch.js' }, types: './dist/adapters/trpc-fetch.d.ts', default: './dist/adapters/trpc-fetch.js' },
      './adapters/standalone': { require: { types: './dist/adapters/standalone.d.cts', default: './dist/adapters/standalone.js' }, types: './dist/adapters/standalone.d.ts', default: './dist/adapters/standalone.js' },
      './docs': { require: { types: './dist/docs/index.d.cts', default: './dist/docs/index.js' }, types: './dist/docs/index.d.ts', default: './dist/docs/index.js' },
      './docs/node': { require: { types: './dist/docs/node.d.cts', default: './dist/docs/node.js' }, types: './dist/docs/node.d.ts', default: './dist/docs/node.js' },
      './package.json': './package.json',
    });
  });

  it('the docs entry for Fetch servers imports no package at all', () => {
    expect(importGraph(built('./docs')).external).toEqual([]);
  });

  it.each(['.', './adapters/fetch', './adapters/trpc-fetch', './docs'])('%s reaches no Node API (node:*, Buffer) in its built module graph: it runs on edge runtimes', (subpath) => {
    const { modules, external } = importGraph(built(subpath));
    expect(modules.size).toBeGreaterThan(2);
    expect(nodeApis(external, modules)).toEqual([]);
  });

  it('the fetch entry imports only these packages', () => {
    expect(importGraph(built('./adapters/fetch')).external).toEqual(['@trpc-oauth2/core', '@trpc-oauth2/core/protocol', '@trpc-oauth2/core/token-endpoint', '@trpc/server', '@trpc/server/adapters/fetch', 'trpc-to-openapi']);
  });

  it('the tRPC fetch entry does not import trpc-to-openapi, whose root loads its Node adapters', () => {
    expect(importGraph(built('./adapters/trpc-fetch')).external).toEqual(['@trpc-oauth2/core', '@trpc-oauth2/core/protocol', '@trpc-oauth2/core/token-endpoint', '@trpc/server', '@trpc/server/adapters/fetch']);
  });

  it('the walk finds the Node APIs of the standalone entry, so its approval of the others means something', () => {
    const { modules, external } = importGraph(built('./adapters/standalone'));
    expect(nodeApis(external, modules)).toContain('node:http');
    const docs = importGraph(built('./docs/node'));
    expect(nodeApis(docs.external, docs.modules)).toContain('node:fs/promises');
    const file = join(root, 'dist', 'x.js');
    expect(nodeApis([], new Map([[file, '// Buffer in a comment\nconst b = Buffer.from("a");']]))).toEqual(['Buffer in dist/x.js']);
  });
});
