import type { ProtectedResourceMetadata } from './protected-resource-metadata.js';

/**
 * The option every handler of this package takes to serve protected resource metadata.
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
}
