import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const entry = new URL('../src/index.ts', import.meta.url).pathname;
const program = ts.createProgram([entry], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true });
const checker = program.getTypeChecker();
const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
const exported = checker.getExportsOfModule(moduleSymbol).map((symbol) => {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const tags = target.getJsDocTags(checker).map((tag) => tag.name);
  return { name: symbol.getName(), documented: target.getDocumentationComment(checker).length > 0, tags };
});

describe('TSDoc', () => {
  it('the package exports its public API', () => {
    expect(exported.map((symbol) => symbol.name).sort()).toEqual([
      'CreateOAuth2OpenApiFetchHandlerOptions',
      'CreateOAuth2OpenApiHttpHandlerOptions',
      'DEFAULT_MAX_FORM_BODY_SIZE',
      'FormMediaType',
      'FormRequestOptions',
      'MULTIPART',
      'OAuth2FetchRequestHandlerOptions',
      'SecuritySchemeConflictError',
      'URLENCODED',
      'createOAuth2HTTPHandler',
      'createOAuth2HTTPServer',
      'createOAuth2OpenApiFetchHandler',
      'createOAuth2OpenApiHttpHandler',
      'generateOAuth2OpenApiDocument',
      'oauth2FetchRequestHandler',
      'refuseBodyErrors',
      'rewriteFormRequest',
    ]);
  });

  it.each(exported)('$name has a description and an @example', ({ documented, tags }) => {
    expect(documented).toBe(true);
    expect(tags).toContain('example');
  });
});
