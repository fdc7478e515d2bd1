/**
 * Every TypeScript example of what a user reads (the root README, `docs/`, each package's README
 * and the demo's), type-checked as a user's ESM app compiles it: against the built packages,
 * through their `exports` (an import path they do not export does not resolve), strictly
 * (`exactOptionalPropertyTypes` on). The examples that serve something are run by their package's
 * README tests (word for word); the two fragments that stand alone here are run here too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { oauth2Bearer } from '@trpc-oauth2/core';
import { jwtVerifier } from '@trpc-oauth2/jwt';
import { protectedResourceMetadata } from '@trpc-oauth2/openapi';
import { serveKeySet } from '@trpc-oauth2/test-kit';
import { initTRPC, lazy } from '@trpc/server';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/packages.js';

/** The documents a user reads: every `.md` of `docs/`, the root README, every app's and package's README. */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`),
  ...['packages', 'apps'].flatMap((folder) =>
    readdirSync(join(ROOT, folder))
      .map((name) => `${folder}/${name}/README.md`)
      .filter((path) => {
        try {
          readFileSync(join(ROOT, path));
          return true;
        } catch {
          return false;
        }
      }),
  ),
];

interface Example {
  document: string;
  line: number;
  code: string;
}

/** The ```ts blocks of a Markdown text, each with the line its code starts on. */
const examplesOf = (document: string, text: string): Example[] =>
  [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => ({
    document,
    line: text.slice(0, match.index).split('\n').length + 1,
    code: match[1]!,
  }));

/**
 * A fragment names what the text around it declared: what it names is declared before it, with
 * the types the text gives it. Keyed by the fragment, word for word: a fragment changed or added
 * without its context here fails to compile.
 */
const CONTEXTS: Record<string, string> = {
  // packages/jwt/README.md: "A verifier is also a plain function", `verify` being one of its verifiers.
  "const { subject, scopes, expiresAt } = await verify(token); // or rejects with invalidTokenError(…)\n": [
    "import { jwtVerifier } from '@trpc-oauth2/jwt';",
    'declare const verify: ReturnType<typeof jwtVerifier>;',
    'declare const token: string;',
    'export type Read = [string, readonly string[], number];',
    'export const read = (): Read => [subject, scopes, expiresAt];',
  ].join('\n'),
  // docs/contract.md#protected-resource-metadata: "load them first", `router` being the app's.
  'while (Object.keys(router._def.lazy).length > 0) await Promise.all(Object.values(router._def.lazy).map((lazy) => lazy.load()));\n': [
    "import type { AnyRouter } from '@trpc/server';",
    'declare const router: AnyRouter;',
  ].join('\n'),
};

const JWT_FRAGMENT = Object.keys(CONTEXTS)[0]!;
const LAZY_FRAGMENT = Object.keys(CONTEXTS)[1]!;

const examples = DOCUMENTS.flatMap((document) => examplesOf(document, readFileSync(join(ROOT, document), 'utf8')));

/** A user's ESM app under `moduleResolution: nodenext`, strict, as the README's TypeScript paragraph promises. */
const OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  verbatimModuleSyntax: true,
  // trpc-to-openapi's own declarations do not compile with it off (see the README); test/packaging's
  // app compiles ours with it off.
  skipLibCheck: true,
  types: ['node'],
  noEmit: true,
};

/**
 * Type-checks each example as a file of its own, in `test/packaging/` (an ESM package: top-level
 * await) so that its imports resolve as a workspace app's do, to the packages' built `dist/`.
 * Nothing is written: the host serves the examples from memory.
 */
const diagnosticsOf = (sources: ReadonlyMap<string, string>): Map<string, string[]> => {
  const host = ts.createCompilerHost(OPTIONS);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => sources.has(file) || fileExists.call(host, file);
  host.readFile = (file) => sources.get(file) ?? readFile.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const text = sources.get(file);
    return text === undefined ? getSourceFile.call(host, file, language, ...rest) : ts.createSourceFile(file, text, language, true);
  };
  const program = ts.createProgram([...sources.keys()], OPTIONS, host);
  const found = new Map<string, string[]>([...sources.keys()].map((file) => [file, []]));
  for (const diagnostic of [...program.getGlobalDiagnostics(), ...program.getOptionsDiagnostics()]) {
    for (const list of found.values()) list.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  }
  for (const file of sources.keys()) {
    for (const diagnostic of [...program.getSyntacticDiagnostics(program.getSourceFile(file)), ...program.getSemanticDiagnostics(program.getSourceFile(file))]) {
      const where = diagnostic.start === undefined ? '' : `line ${diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start).line + 1}: `;
      found.get(file)!.push(where + ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    }
  }
  return found;
};

const fileOf = (example: Example) => join(ROOT, 'test/packaging', `${example.document.replaceAll('/', '--')}-${example.line}.ts`);
const sourceOf = (example: Example) => (CONTEXTS[example.code] === undefined ? example.code : `${CONTEXTS[example.code]}\n${example.code}`);

describe('the TypeScript examples of the docs', () => {
  it('are found in every document a user reads', () => {
    expect(DOCUMENTS).toEqual(expect.arrayContaining(['README.md', 'docs/contract.md', 'packages/core/README.md', 'packages/jwt/README.md', 'packages/openapi/README.md', 'apps/demo/README.md']));
    expect(examples.length).toBeGreaterThanOrEqual(12);
  });

  it('give a context to fragments that are still in the docs only', () => {
    const codes = new Set(examples.map((example) => example.code));
    expect(Object.keys(CONTEXTS).filter((fragment) => !codes.has(fragment))).toEqual([]);
  });

  const diagnostics = diagnosticsOf(new Map(examples.map((example) => [fileOf(example), sourceOf(example)])));
  it.each(examples.map((example) => [`${example.document}:${example.line}`, example] as const))('%s compiles against the built packages', (_, example) => {
    expect(diagnostics.get(fileOf(example))).toEqual([]);
  });
});

/** A fragment as JavaScript, run as the body of an async function of the names it is given. */
const runnable = (fragment: string, names: readonly string[], after = '') => {
  const { outputText } = ts.transpileModule(fragment + after, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } });
  const AsyncFunction = (async () => undefined).constructor as new (...args: string[]) => (...values: unknown[]) => Promise<unknown>;
  return new AsyncFunction(...names, outputText);
};

describe('the fragments of the docs do what their text says', () => {
  it('packages/jwt/README.md: a verifier called alone gives the principal, or rejects with invalid_token', async () => {
    const keySet = await serveKeySet();
    try {
      const { issuer } = keySet;
      const verify = jwtVerifier({ jwksUrl: `${issuer}/jwks`, algorithms: ['ES256'], issuer, audience: 'https://api.example' });
      const run = runnable(JWT_FRAGMENT, ['verify', 'token'], 'return { subject, scopes, expiresAt };');
      const principal = (await run(verify, await keySet.token({ scope: 'read write' }))) as { subject: string; scopes: string[]; expiresAt: number };
      expect(principal.subject).toBe('alice');
      expect(principal.scopes).toEqual(['read', 'write']);
      expect(principal.expiresAt).toBeGreaterThan(Date.now() / 1000);
      const foreign = await keySet.token({ scope: 'read' }, { audience: 'https://other.example' });
      await expect(run(verify, foreign)).rejects.toMatchObject({ code: 'UNAUTHORIZED', cause: { error: 'invalid_token' } });
    } finally {
      await keySet.close();
    }
  });

  it('docs/contract.md: the loop loads every lazy() router, nested ones too, so the metadata is built', async () => {
    const t = initTRPC.create();
    const resource = 'https://api.example/mcp';
    const auth = oauth2Bearer({
      flows: { clientCredentials: { tokenUrl: 'https://issuer.example/token', scopes: { read: 'Read', admin: 'Administer' } } },
      verify: jwtVerifier({ jwksUrl: 'https://issuer.example/jwks', algorithms: ['ES256'], issuer: 'https://issuer.example', audience: resource }),
    });
    const admin = () => t.router({ wipe: t.procedure.use(auth.withScopes('admin')).mutation(() => 'wiped') });
    const router = t.router({
      items: t.procedure.use(auth.withScopes('read')).query(() => 'ok'),
      admin: lazy(async () => admin()),
      nested: t.router({ deep: lazy(async () => t.router({ inner: lazy(async () => admin()) })) }),
    });
    const options = { resource, authorizationServers: ['https://issuer.example'] } as const;
    expect(() => protectedResourceMetadata(router, options)).toThrow(TypeError);
    await runnable(LAZY_FRAGMENT, ['router'])(router);
    expect(Object.keys(router._def.lazy)).toEqual([]);
    expect(protectedResourceMetadata(router, options).scopes_supported).toEqual(['read', 'admin']);
  });
});
