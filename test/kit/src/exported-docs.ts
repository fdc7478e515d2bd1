import ts from 'typescript';

/** One export of a module entry, and what its TSDoc says. */
export interface ExportedDoc {
  name: string;
  documented: boolean;
  tags: string[];
}

/** Every export of the module at `entry` (a path), with its TSDoc description and tags. */
export function exportedDocs(entry: string): ExportedDoc[] {
  const program = ts.createProgram([entry], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
  return checker.getExportsOfModule(moduleSymbol).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return {
      name: symbol.getName(),
      documented: target.getDocumentationComment(checker).length > 0,
      tags: target.getJsDocTags(checker).map((tag) => tag.name),
    };
  });
}
