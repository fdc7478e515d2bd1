/**
 * `@trpc-oauth2/openapi/docs`: the OpenAPI documents and Swagger UI served in one call, for
 * Fetch servers (Node's `fetch` servers, Deno, Bun, edge functions), with safe headers, PKCE and
 * the OAuth2 redirect page. No Node API. For `node:http`, and for the files of `swagger-ui-dist`
 * read on Node, see `@trpc-oauth2/openapi/docs/node`.
 * @module
 */
export { createDocsFetchHandler, type DocsAssets, type DocsFetchHandlerOptions } from './fetch.js';
export {
  docsSecurityHeaders,
  SWAGGER_UI_ASSETS,
  type DocsDocument,
  type DocsOptions,
  type SwaggerUiAsset,
} from './swagger-ui.js';
