/**
 * Both entries run on edge runtimes: no module of core's source reaches a Node API (`node:*`
 * imports, Node built-ins, `Buffer`), so `@trpc-oauth2/openapi/adapters/fetch` can run there too.
 * The one exception is a `node` target of package.json's import conditions (the `node:crypto`
 * signature step): only Node loads it, and nothing reaches it but through its condition.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url).pathname;
const CONDITIONS = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  imports: Record<string, { node?: string; default: string }>;
}).imports;
/** The source of each `node` target, as a path under src. */
const NODE_ONLY = Object.values(CONDITIONS).flatMap(({ node }) => (node === undefined ? [] : [join(...node.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts').split('/'))]));
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The Node APIs a source file uses, comments aside. */
function nodeApis(code: string): string[] {
  const withoutComments = code.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  const found = [...withoutComments.matchAll(SPECIFIER)]
    .map((match) => (match[1] ?? match[2])!)
    .filter((specifier) => specifier.startsWith('node:') || isBuiltin(specifier));
  if (/\bBuffer\b/.test(withoutComments)) found.push('Buffer');
  if (/\bprocess\./.test(withoutComments)) found.push('process');
  return found;
}

describe('core on edge runtimes', () => {
  const sources = (readdirSync(SRC, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));
  const files = sources.filter((file) => !NODE_ONLY.includes(file));

  it.each(files)('%s uses no Node API', (file) => {
    expect(nodeApis(readFileSync(join(SRC, file), 'utf8'))).toEqual([]);
  });

  it('loads the Node-only modules through their import condition only', () => {
    expect(NODE_ONLY).toEqual([join('jws', 'signature', 'node.ts')]);
    for (const file of files) {
      const code = readFileSync(join(SRC, file), 'utf8');
      expect(code, file).not.toMatch(/['"][^'"]*signature\/node(\.js)?['"]/);
    }
  });

  it('reads every folder of the source', () => {
    expect(files).toEqual(expect.arrayContaining(['index.ts', join('readers', 'security-reader.ts'), join('token-endpoint', 'token-endpoint.ts')]));
  });

  it('the check finds a Node API where there is one', () => {
    expect(nodeApis("import { x } from 'node:fs';\nconst b = Buffer.from('a');")).toEqual(['node:fs', 'Buffer']);
  });
});
