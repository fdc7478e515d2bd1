/**
 * Where protected resource metadata is served (RFC 9728 §3.1), and how a request for it is answered.
 * @module
 */
import type { ProtectedResourceMetadata } from './protected-resource-metadata.js';


/**
 * The well-known path of protected resource metadata (RFC 9728 §3).
 *
 * @example
 * ```ts
 * RESOURCE_METADATA_PATH; // '/.well-known/oauth-protected-resource'
 * ```
 */
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * The URL of a resource's metadata (RFC 9728 §3.1): the well-known path inserted between the
 * host and the resource's path (`https://api.example/mcp` →
 * `https://api.example/.well-known/oauth-protected-resource/mcp`). What a challenge's
 * `resource_metadata` names.
 *
 * @example
 * ```ts
 * resourceMetadataUrl('https://api.example/mcp'); // 'https://api.example/.well-known/oauth-protected-resource/mcp'
 * ```
 */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return `${url.origin}${RESOURCE_METADATA_PATH}${path}${url.search}`;
}

/** What a metadata request is answered with. */
export interface MetadataAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Answers a request (method, path) with the metadata, or `undefined` when it asks for something else. */
export type MetadataResponder = (method: string, pathname: string) => MetadataAnswer | undefined;

const NONE: MetadataResponder = () => undefined;
const responders = new WeakMap<ProtectedResourceMetadata, MetadataResponder>();

/**
 * The responder of a metadata document, made once per document: it answers at the path-aware
 * URL of its resource and at the bare well-known path, 200 JSON to `GET` / `HEAD`, 204 to a CORS
 * preflight, 405 to any other method; readable from any origin (browser clients discover it),
 * cacheable for an hour.
 */
export function metadataResponder(metadata: ProtectedResourceMetadata | undefined): MetadataResponder {
  if (metadata === undefined) return NONE;
  let responder = responders.get(metadata);
  if (responder !== undefined) return responder;
  const paths = new Set([new URL(resourceMetadataUrl(metadata.resource)).pathname, RESOURCE_METADATA_PATH]);
  const body = JSON.stringify(metadata);
  const headers = { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=3600' };
  responder = (method, pathname) => {
    if (!paths.has(pathname)) return undefined;
    if (method === 'OPTIONS') return { status: 204, headers: { ...headers, 'access-control-allow-methods': 'GET, HEAD, OPTIONS' }, body: '' };
    if (method !== 'GET' && method !== 'HEAD') {
      return { status: 405, headers: { ...headers, allow: 'GET, HEAD, OPTIONS' }, body: JSON.stringify({ message: 'Method not allowed', code: 'METHOD_NOT_SUPPORTED' }) };
    }
    return { status: 200, headers, body: method === 'HEAD' ? '' : body };
  };
  responders.set(metadata, responder);
  return responder;
}

/** A metadata answer as a Fetch `Response`. */
export function metadataResponse(answer: MetadataAnswer): Response {
  return new Response(answer.body === '' ? null : answer.body, { status: answer.status, headers: answer.headers });
}
