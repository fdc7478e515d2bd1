#!/usr/bin/env node
/**
 * Writes a CommonJS twin (`.d.cts`, with its `.d.cts.map`) beside every declaration file `tsc`
 * emitted into a package's `dist`, for the `require` condition of its `exports`.
 *
 * Why: the packages are ESM, and `require()` loads them (Node 20.19 and later). But a `.d.ts` of
 * an ESM package is read as ESM, so its `import … from '@trpc/server'` resolves to tRPC's ESM
 * declarations (`index.d.mts`), while a CommonJS consumer's own `import … from '@trpc/server'`
 * resolves to its CommonJS ones (`index.d.cts`): two copies of every tRPC type, and a reader's
 * middleware no longer adds `ctx.token`, `ctx.principal` or `ctx.securityScopes` to the consumer's
 * procedures. A twin is read as CommonJS and resolves every import as the consumer does.
 *
 * A twin is its `.d.ts` with
 * - each relative specifier's `.js` made `.cjs`, so it imports the other twins, never an ESM
 *   declaration;
 * - each import of a package that has ESM declarations only (jose) made `import type … with
 *   { 'resolution-mode': 'import' }`: CommonJS may not import an ES module's declarations
 *   otherwise under `module: node16` (TS1479, TS1541).
 *
 * The code stays the one ESM `.js`: `require()` returns its namespace, which the twin declares.
 *
 * Usage (from a package folder, after `tsc`): `node ../../scripts/cjs-declarations.mjs dist`
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { relative, resolve } from 'node:path';
import ts from 'typescript';

const dist = process.argv[2];
if (!dist) {
  console.error('usage: cjs-declarations.mjs <dist folder>');
  process.exit(2);
}

const RESOLUTION = { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16 };
const IMPORT_MODE = `{ 'resolution-mode': 'import' }`;
const formats = new Map();

/** Whether `specifier`, required from `file`, resolves to declarations TypeScript reads as ESM. */
function isEsmOnly(specifier, file) {
  if (isBuiltin(specifier)) return false; // declared by @types/node, as CommonJS
  const key = `${specifier}\0${file}`;
  if (!formats.has(key)) {
    const { resolvedModule } = ts.resolveModuleName(specifier, file, RESOLUTION, ts.sys, undefined, undefined, ts.ModuleKind.CommonJS);
    if (!resolvedModule) throw new Error(`${file}: '${specifier}' does not resolve from CommonJS`);
    const format = ts.getImpliedNodeFormatForFile(resolvedModule.resolvedFileName, undefined, ts.sys, RESOLUTION);
    formats.set(key, format === ts.ModuleKind.ESNext);
  }
  return formats.get(key);
}

/** The twin's text: `source` (a `.d.ts`) with its specifiers and ESM imports rewritten. */
function twinOf(source, file) {
  const sourceFile = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits = [];
  const replace = (node, text) => edits.push({ start: node.getStart(sourceFile), end: node.getEnd(), text });
  const quote = (literal) => source[literal.getStart(sourceFile)];
  const relativeTwin = (literal) => {
    const specifier = literal.text;
    if (!specifier.endsWith('.js')) throw new Error(`${file}: '${specifier}' (a relative specifier must end in .js)`);
    replace(literal, `${quote(literal)}${specifier.slice(0, -'.js'.length)}.cjs${quote(literal)}`);
  };
  const visit = (node) => {
    const literal =
      ts.isImportDeclaration(node) || ts.isExportDeclaration(node)
        ? node.moduleSpecifier
        : ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)
          ? node.argument.literal
          : undefined;
    if (literal && ts.isStringLiteral(literal)) {
      if (literal.text.startsWith('./') || literal.text.startsWith('../')) relativeTwin(literal);
      else if (isEsmOnly(literal.text, file)) esmImport(node, literal);
    }
    ts.forEachChild(node, visit);
  };
  const esmImport = (node, literal) => {
    const where = `${file}: '${literal.text}' has ESM declarations only`;
    if (ts.isImportTypeNode(node)) {
      if (node.attributes) throw new Error(`${where}, and its import() type has attributes already`);
      replace(node.argument, `${node.argument.getText(sourceFile)}, { with: ${IMPORT_MODE} }`);
      return;
    }
    const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
    const named = clause?.namedBindings;
    if (!clause || clause.name || !named || !ts.isNamedImports(named) || node.attributes) {
      throw new Error(`${where}: only \`import { … } from\` of it can be rewritten`);
    }
    const names = named.elements.map((element) =>
      element.propertyName ? `${element.propertyName.getText(sourceFile)} as ${element.name.text}` : element.name.text,
    );
    replace(node, `import type { ${names.join(', ')} } from ${literal.getText(sourceFile)} with ${IMPORT_MODE};`);
  };
  visit(sourceFile);
  let text = source;
  for (const edit of edits.sort((a, b) => b.start - a.start)) text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
  return text.replace(/^\/\/# sourceMappingURL=(.+)\.d\.ts\.map\s*$/m, '//# sourceMappingURL=$1.d.cts.map');
}

const files = (await readdir(dist, { recursive: true })).filter((file) => file.endsWith('.d.ts')).sort();
if (files.length === 0) {
  console.error(`cjs-declarations: no .d.ts in ${dist}: run tsc first`);
  process.exit(1);
}
for (const file of files) {
  const path = resolve(dist, file);
  const twin = path.slice(0, -'.d.ts'.length) + '.d.cts';
  await writeFile(twin, twinOf(await readFile(path, 'utf8'), twin));
  const map = await readFile(`${path}.map`, 'utf8').catch(() => undefined);
  if (map !== undefined) {
    const parsed = JSON.parse(map);
    parsed.file = parsed.file.replace(/\.d\.ts$/, '.d.cts');
    await writeFile(`${twin}.map`, JSON.stringify(parsed));
  }
}
console.log(`cjs-declarations: ${files.length} .d.cts in ${relative(process.cwd(), dist) || '.'}`);
