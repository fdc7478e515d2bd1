import { readdirSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Every module of the demo (the server's in src/, the soak tool's in soak/) but the entry
// scripts, which export nothing.
const APP = new URL('../', import.meta.url).pathname;
const ENTRY_SCRIPTS = ['src/server/main.ts', 'src/client/main.ts', 'soak/main.ts', 'soak/server.ts'];
const files = ['src', 'soak']
  .flatMap((dir) => readdirSync(APP + dir, { recursive: true, encoding: 'utf8' }).map((file) => `${dir}/${file}`))
  .filter((file) => file.endsWith('.ts') && !ENTRY_SCRIPTS.includes(file))
  .map((file) => APP + file);
const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true });
const checker = program.getTypeChecker();
const exported = files.flatMap((file) => {
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file)!);
  if (moduleSymbol === undefined) return [];
  return checker.getExportsOfModule(moduleSymbol).map((symbol) => ({
    name: `${file.slice(APP.length)}: ${symbol.getName()}`,
    documented: symbol.getDocumentationComment(checker).length > 0,
    tags: symbol.getJsDocTags(checker).map((tag) => tag.name),
  }));
});

describe('TSDoc of the demo', () => {
  it('finds the exports of every module', () => {
    expect(exported.length).toBeGreaterThan(40);
  });

  it.each(exported)('$name has a description and an @example', ({ documented, tags }) => {
    expect(documented).toBe(true);
    expect(tags).toContain('example');
  });
});
