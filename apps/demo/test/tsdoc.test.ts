import { readdirSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Every module of the demo but the two entry scripts, which export nothing.
const SRC = new URL('../src/', import.meta.url).pathname;
const files = readdirSync(SRC)
  .filter((file) => file.endsWith('.ts') && !['main.ts', 'client.ts'].includes(file))
  .map((file) => SRC + file);
const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true });
const checker = program.getTypeChecker();
const exported = files.flatMap((file) => {
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file)!);
  if (moduleSymbol === undefined) return [];
  return checker.getExportsOfModule(moduleSymbol).map((symbol) => ({
    name: `${file.slice(SRC.length)}: ${symbol.getName()}`,
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
