/**
 * `@trpc-oauth2/openapi`: an OpenAPI 3.1 document whose security is read from each procedure's
 * chain (flows, per-operation scopes, challenge headers, the token endpoint's form body), and the
 * constants and types of the body policy its handlers share. Runs on any runtime. The handlers
 * are in `@trpc-oauth2/openapi/adapters/fetch` and `@trpc-oauth2/openapi/adapters/standalone`.
 *
 * Data flows router → chain security → document (and RFC 9728 protected resource metadata); and
 * request → body policy → adapter → `responseMeta` → response.
 * @module
 */
export { generateOAuth2OpenApiDocument } from './document/generate-oauth2-openapi-document.js';
export { SecuritySchemeConflictError } from './document/security-scheme-conflict-error.js';
export { DEFAULT_MAX_BODY_SIZE } from './body/limit.js';
export { DEFAULT_MAX_BATCH_SIZE } from './adapters/batch.js';
export { URLENCODED, MULTIPART, type FormMediaType } from './body/media-type.js';
export {
  protectedResourceMetadata,
  type ProtectedResourceMetadata,
  type ProtectedResourceMetadataOptions,
} from './resource/protected-resource-metadata.js';
export { AuthorizationServerMismatchError } from './resource/authorization-server-mismatch-error.js';
export { ResourceAudienceMismatchError } from './resource/resource-audience-mismatch-error.js';
export { resourceMetadataUrl, RESOURCE_METADATA_PATH, AUTHORIZATION_SERVER_METADATA_PATH, authorizationServerMetadataPath } from './resource/well-known.js';
export type { ResourceMetadataOption } from './resource/resource-metadata-option.js';
