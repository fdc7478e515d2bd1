import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../src/', import.meta.url));
const files = (readdirSync(src, { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).map((file) => join(src, file));
const program = ts.createProgram(files, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true });
const checker = program.getTypeChecker();
const exported = files.flatMap((file) => {
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file)!);
  // Entry points (main, server-main) export nothing.
  return moduleSymbol === undefined
    ? []
    : checker.getExportsOfModule(moduleSymbol).map((symbol) => ({
        name: `${file.slice(src.length)}: ${symbol.getName()}`,
        documented: symbol.getDocumentationComment(checker).length > 0,
        tags: symbol.getJsDocTags(checker).map((tag) => tag.name),
      }));
});

describe('TSDoc', () => {
  it('finds the exported symbols of every module', () => {
    expect(exported.length).toBeGreaterThan(50);
  });

  it.each(exported)('$name has a description and an @example', ({ documented, tags }) => {
    expect(documented).toBe(true);
    expect(tags).toContain('example');
  });
});
