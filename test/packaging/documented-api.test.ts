/**
 * What the packages export is documented, and what the docs name exists: every stable code the
 * built declarations carry is in docs/contract.md#stable-codes once, and no other code is; every
 * value an entry exports is named in its package's README or the contract; every
 * option of an exported `…Options` type is named in the docs a user reads, and every option of a
 * README's option table is one of the package's options; every `@trpc-oauth2/…` import path the
 * docs name is an entry the packages export.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT, publishedPackages } from './support/packages.js';

const PACKAGES = publishedPackages();
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const CONTRACT = read('docs/contract.md');

/** The ESM declarations of a built package (`dist/**\/*.d.ts`). */
function* declarationsUnder(folder: string): Generator<string> {
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) yield* declarationsUnder(path);
    else if (entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The rows of the first table under a `## heading` of a Markdown text, as their cells. */
function tableUnder(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start === -1) return [];
  const end = markdown.indexOf('\n## ', start + 1);
  const rows = markdown
    .slice(start, end === -1 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('|'));
  return rows.slice(2).map((row) => row.slice(1, -1).split(' | ').map((cell) => cell.trim()));
}

describe('the stable codes', () => {
  const declared = new Set(
    PACKAGES.flatMap((p) => [...declarationsUnder(join(p.dir, 'dist'))]).flatMap((file) => [...read(file).matchAll(/["'](ERR_[A-Z_]*[A-Z])["']/g)].map((match) => match[1]!)),
  );
  const documented = tableUnder(CONTRACT, 'Stable codes').map(([code]) => /^`(ERR_[A-Z_]+)`$/.exec(code ?? '')?.[1] ?? `not a code: ${code}`);

  it('are found in the built declarations', () => {
    expect([...declared]).toEqual(expect.arrayContaining(['ERR_NOT_AUTHENTICATED', 'ERR_JWKS_UNAVAILABLE', 'ERR_SECURITY_SCHEME_CONFLICT']));
  });

  it('are each in the contract table once, and the table names no other', () => {
    expect(documented.filter((code, index) => documented.indexOf(code) !== index)).toEqual([]);
    expect([...documented].sort()).toEqual([...declared].sort());
  });
});

/** Every entry of every published package: its name and its built ESM declarations. */
const ENTRIES = PACKAGES.flatMap((p) =>
  Object.entries(p.manifest.exports)
    .map(([subpath, target]) => [subpath, (target as { types?: string }).types] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== undefined)
    .map(([subpath, types]) => ({ package: p, entry: p.name + subpath.slice(1), file: join(ROOT, p.dir, types) })),
);

interface Option {
  entry: string;
  type: string;
  name: string;
  dir: string;
}

/** The built declarations of every entry, as one program. */
const PROGRAM = ts.createProgram(
  ENTRIES.map((e) => e.file),
  { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, skipLibCheck: true, noEmit: true },
);

/** The options of the exported `…Options` types that the package itself declares (not those a type of tRPC's brings). */
function exportedOptions(): Option[] {
  const program = PROGRAM;
  const checker = program.getTypeChecker();
  const options: Option[] = [];
  for (const { package: p, entry, file } of ENTRIES) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
    for (const exported of checker.getExportsOfModule(module)) {
      if (!exported.name.endsWith('Options')) continue;
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      for (const property of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
        const own = (property.declarations ?? []).some((declaration) => declaration.getSourceFile().fileName.startsWith(join(ROOT, p.dir, 'dist')));
        if (own) options.push({ entry, type: exported.name, name: property.name, dir: p.dir });
      }
    }
  }
  return options;
}

/** Where a name is documented: its package's README or the contract, in code (`name`, `name: …`, `{ name, … }`, `name(…)`). */
const namedIn = (text: string, name: string) => new RegExp(`\`[^\`\\n]*(?<![\\w.$])${name.replace(/\$/g, '\\$')}(?![\\w$])[^\`\\n]*\``).test(text);

describe('the values the entries export', () => {
  it("are each named in the package's README or the contract", () => {
    const checker = PROGRAM.getTypeChecker();
    const unnamed = ENTRIES.flatMap(({ package: p, entry, file }) =>
      checker
        .getExportsOfModule(checker.getSymbolAtLocation(PROGRAM.getSourceFile(file)!)!)
        .filter((exported) => ((exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported).flags & ts.SymbolFlags.Value) !== 0)
        .filter((exported) => !namedIn(read(join(p.dir, 'README.md')), exported.name) && !namedIn(CONTRACT, exported.name))
        .map((exported) => `${entry}: ${exported.name}`),
    );
    expect(unnamed).toEqual([]);
  });
});

describe('the options', () => {
  const options = exportedOptions();

  it('are found in the built declarations', () => {
    expect(options.map((o) => `${o.type}.${o.name}`)).toEqual(expect.arrayContaining(['JwtVerifierCommonOptions.clockTolerance', 'CacheVerifierOptions.maxEntries', 'TokenEndpointOptions.authenticateClient']));
  });

  it('are each named in the docs', () => {
    const undocumented = options.filter((o) => !namedIn(read(join(o.dir, 'README.md')), o.name) && !namedIn(CONTRACT, o.name));
    expect(undocumented.map((o) => `${o.entry}: ${o.type}.${o.name}`)).toEqual([]);
  });

  it.each(PACKAGES.map((p) => [p.name, p] as const))("of %s's README option tables are its options", (_, p) => {
    const readme = read(join(p.dir, 'README.md'));
    const tabled = [...readme.matchAll(/^\| option \| default \| meaning \|\n\|[-|]+\|\n((?:\|.*\n)+)/gm)].flatMap((table) =>
      table[1]!
        .trimEnd()
        .split('\n')
        .flatMap((row) => [...row.split(' | ')[0]!.matchAll(/`(\w+)`/g)].map((match) => match[1]!)),
    );
    const own = new Set(options.filter((o) => o.dir === p.dir).map((o) => o.name));
    expect(tabled.filter((name) => !own.has(name))).toEqual([]);
  });
});

describe('the import paths the docs name', () => {
  const DOCUMENTS = ['README.md', 'docs/contract.md', 'docs/README.md', ...PACKAGES.map((p) => join(p.dir, 'README.md')), 'apps/demo/README.md'];
  const exported = new Set(ENTRIES.map((e) => e.entry));
  const published = new Set(PACKAGES.map((p) => p.name));

  it("are entries of the published packages' exports", () => {
    const named = DOCUMENTS.flatMap((document) => [...read(document).matchAll(/@trpc-oauth2\/[a-z-]+(?:\/[a-z0-9-]+)*/g)].map((match) => ({ document, path: match[0] })));
    const ours = named.filter(({ path }) => published.has(path.split('/').slice(0, 2).join('/')));
    expect(ours.length).toBeGreaterThan(20);
    expect(ours.filter(({ path }) => !exported.has(path)).map(({ document, path }) => `${document}: ${path}`)).toEqual([]);
  });
});
