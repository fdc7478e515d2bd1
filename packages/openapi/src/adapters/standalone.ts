/**
 * `@trpc-oauth2/openapi/adapters/standalone`: the handlers for Node's `http` server, beside
 * `@trpc/server/adapters/standalone`.
 * @module
 */
export {
  createOAuth2OpenApiHttpHandler,
  type CreateOAuth2OpenApiHttpHandlerOptions,
  type OAuth2OpenApiHttpContextOptions,
} from './create-oauth2-openapi-http-handler.js';
export { createOAuth2HTTPHandler, createOAuth2HTTPServer } from './create-oauth2-http-handler.js';
