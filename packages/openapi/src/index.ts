/**
 * OAuth2 on the REST face of a tRPC router, through trpc-to-openapi: an OpenAPI 3.1 document
 * whose security is read from each procedure's chain (flows, per-operation scopes, challenge
 * headers, the token endpoint's form body), and handlers that serve form bodies and
 * `WWW-Authenticate` over REST and tRPC's own adapters.
 *
 * Data flows router → document, and request → form rewrite → adapter → `responseMeta` → response.
 * @module
 */
export { generateOAuth2OpenApiDocument } from './generate-oauth2-openapi-document.js';
export { SecuritySchemeConflictError } from './security-scheme-conflict-error.js';
export {
  createOAuth2OpenApiFetchHandler,
  type CreateOAuth2OpenApiFetchHandlerOptions,
} from './create-oauth2-openapi-fetch-handler.js';
export {
  createOAuth2OpenApiHttpHandler,
  type CreateOAuth2OpenApiHttpHandlerOptions,
} from './create-oauth2-openapi-http-handler.js';
export { oauth2FetchRequestHandler, type OAuth2FetchRequestHandlerOptions } from './oauth2-fetch-request-handler.js';
export { createOAuth2HTTPHandler } from './create-oauth2-http-handler.js';
export { createOAuth2HTTPServer } from './create-oauth2-http-server.js';
export { rewriteFormRequest, DEFAULT_MAX_FORM_BODY_SIZE, type FormRequestOptions } from './rewrite-form-request.js';
export { refuseBodyErrors } from './refuse-body-errors.js';
export { URLENCODED, MULTIPART, type FormMediaType } from './media-type.js';
