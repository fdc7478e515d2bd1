import type { AuthorizationServerMetadata } from '@trpc-oauth2/core/token-endpoint';
import type { ProtectedResourceMetadata } from './protected-resource-metadata.js';

/**
 * The options every handler of this package takes to serve protected resource metadata (RFC
 * 9728) and, for an application with its own token endpoint, authorization server metadata (RFC 8414).
 *
 * @example
 * ```ts
 * const option: ResourceMetadataOption = { resourceMetadata: protectedResourceMetadata(appRouter, { resource, authorizationServers }) };
 * ```
 */
export interface ResourceMetadataOption {
  /**
   * Metadata built by `protectedResourceMetadata`, served at
   * `/.well-known/oauth-protected-resource` and at its path-aware form for the resource's path
   * (RFC 9728 §3.1), whatever the handler's `basePath` or `endpoint`
   * (docs/contract.md#protected-resource-metadata).
   */
  resourceMetadata?: ProtectedResourceMetadata;
  /**
   * For an application that runs its own token endpoint with `@trpc-oauth2/core/token-endpoint`:
   * the metadata `authorizationServerMetadata` built from it, served at
   * `/.well-known/oauth-authorization-server` followed by the issuer's path (RFC 8414 §3.1),
   * whatever the handler's `basePath` or `endpoint` (docs/contract.md#authorization-server-metadata).
   */
  authorizationServerMetadata?: AuthorizationServerMetadata;
}
