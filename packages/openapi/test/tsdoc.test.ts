import { describe, expect, it } from 'vitest';
import { exportedDocs } from '../../core/test/support/exported-docs.js';

const exported = exportedDocs(new URL('../src/index.ts', import.meta.url).pathname);

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
