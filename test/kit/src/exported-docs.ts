import ts from 'typescript';

/**
 * One export of a module entry, and what its TSDoc says. `callable` is a function (or a
 * constant holding one) or a class: what people call, so what needs an `@example`.
 */
export interface ExportedDoc {
  name: string;
  documented: boolean;
  tags: string[];
  callable: boolean;
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
      callable: isCallable(checker, target),
    };
  });
}

function isCallable(checker: ts.TypeChecker, symbol: ts.Symbol): boolean {
  if (symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Class)) return true;
  const declaration = symbol.valueDeclaration;
  if (!(symbol.flags & ts.SymbolFlags.Variable) || declaration === undefined) return false;
  return checker.getTypeOfSymbolAtLocation(symbol, declaration).getCallSignatures().length > 0;
}

/**
 * What the TSDoc of an export lacks: a summary for every export, and an `@example` for what
 * people call (functions and classes). Types and constants need the summary only.
 */
export function missingDocs({ documented, tags, callable }: ExportedDoc): string[] {
  return [...(documented ? [] : ['summary']), ...(callable && !tags.includes('example') ? ['@example'] : [])];
}
