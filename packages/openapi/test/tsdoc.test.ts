import { describe, expect, it } from 'vitest';
import { exportedDocs, missingDocs } from '@trpc-oauth2/test-kit';

/** Each entry of the package (its `exports`), the source it is built from, and its public API. */
const ENTRIES = [
  {
    entry: '@trpc-oauth2/openapi',
    source: '../src/index.ts',
    names: [
      'AUTHORIZATION_SERVER_METADATA_PATH',
      'AuthorizationServerMismatchError',
      'DEFAULT_MAX_BATCH_SIZE',
      'DEFAULT_MAX_BODY_SIZE',
      'FormMediaType',
      'MULTIPART',
      'ProtectedResourceMetadata',
      'ProtectedResourceMetadataOptions',
      'RESOURCE_METADATA_PATH',
      'ResourceAudienceMismatchError',
      'ResourceMetadataOption',
      'SecuritySchemeConflictError',
      'URLENCODED',
      'authorizationServerMetadataPath',
      'generateOAuth2OpenApiDocument',
      'protectedResourceMetadata',
      'resourceMetadataUrl',
    ],
  },
  {
    entry: '@trpc-oauth2/openapi/adapters/fetch',
    source: '../src/adapters/fetch.ts',
    names: [
      'CreateOAuth2OpenApiFetchHandlerOptions',
      'FormRequestOptions',
      'OAuth2FetchRequestHandlerOptions',
      'createOAuth2OpenApiFetchHandler',
      'oauth2FetchRequestHandler',
      'refuseBodyErrors',
      'rewriteFormRequest',
    ],
  },
  {
    entry: '@trpc-oauth2/openapi/adapters/standalone',
    source: '../src/adapters/standalone.ts',
    names: [
      'CreateOAuth2OpenApiHttpHandlerOptions',
      'OAuth2OpenApiHttpContextOptions',
      'createOAuth2HTTPHandler',
      'createOAuth2HTTPServer',
      'createOAuth2OpenApiHttpHandler',
    ],
  },
  {
    entry: '@trpc-oauth2/openapi/docs',
    source: '../src/docs/index.ts',
    names: ['DocsAssets', 'DocsDocument', 'DocsFetchHandlerOptions', 'DocsOptions', 'SWAGGER_UI_ASSETS', 'SwaggerUiAsset', 'createDocsFetchHandler', 'docsSecurityHeaders'],
  },
  {
    entry: '@trpc-oauth2/openapi/docs/node',
    source: '../src/docs/node.ts',
    names: ['DocsDocument', 'DocsOptions', 'createDocsHandler', 'swaggerUiAssets'],
  },
].map((entry) => ({ ...entry, exported: exportedDocs(new URL(entry.source, import.meta.url).pathname) }));

describe('TSDoc', () => {
  it.each(ENTRIES)('$entry exports its public API', ({ exported, names }) => {
    expect(exported.map((symbol) => symbol.name).sort()).toEqual(names);
  });

  it.each(ENTRIES.flatMap(({ entry, exported }) => exported.map((symbol) => ({ entry, ...symbol }))))(
    '$entry: $name has a summary, and an @example if it is called',
    (symbol) => {
      expect(missingDocs(symbol)).toEqual([]);
    },
  );
});
