/**
 * Both entries run on edge runtimes: no module of core's source reaches a Node API (`node:*`
 * imports, Node built-ins, `Buffer`), so `@trpc-oauth2/openapi/adapters/fetch` can run there too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url).pathname;
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
  const files = (readdirSync(SRC, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts'));

  it.each(files)('%s uses no Node API', (file) => {
    expect(nodeApis(readFileSync(join(SRC, file), 'utf8'))).toEqual([]);
  });

  it('reads every folder of the source', () => {
    expect(files).toEqual(expect.arrayContaining(['index.ts', join('readers', 'security-reader.ts'), join('token-endpoint', 'token-endpoint.ts')]));
  });

  it('the check finds a Node API where there is one', () => {
    expect(nodeApis("import { x } from 'node:fs';\nconst b = Buffer.from('a');")).toEqual(['node:fs', 'Buffer']);
  });
});
