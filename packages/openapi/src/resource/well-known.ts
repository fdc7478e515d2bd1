/**
 * Where protected resource metadata is served (RFC 9728 §3.1), and how a request for it is answered.
 * @module
 */
import type { ResourceMetadataOption } from './resource-metadata-option.js';

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
const responders = new WeakMap<object, MetadataResponder>();

/**
 * The well-known path of authorization server metadata (RFC 8414 §3).
 *
 * @example
 * ```ts
 * AUTHORIZATION_SERVER_METADATA_PATH; // '/.well-known/oauth-authorization-server'
 * ```
 */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/**
 * The responder of one metadata document, made once per document: it answers at the paths
 * `pathsOf` gives (asked only when it is made: the fetch handlers ask for the responder on every
 * request, and the paths cost three URL parses), 200 JSON to `GET` / `HEAD`, 204 to a CORS
 * preflight, 405 to any other method; readable from any origin (browser clients discover it),
 * cacheable for an hour.
 */
function documentResponder(document: object, pathsOf: () => ReadonlySet<string>): MetadataResponder {
  let responder = responders.get(document);
  if (responder !== undefined) return responder;
  const paths = pathsOf();
  const body = JSON.stringify(document);
  const headers = { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'cache-control': 'public, max-age=3600' };
  responder = (method, pathname) => {
    if (!paths.has(pathname)) return undefined;
    if (method === 'OPTIONS') {
      // A browser's MCP client asks with `MCP-Protocol-Version`, a header no CORS request may
      // carry unless the preflight allows it: `*` allows any (but `Authorization`) to a request
      // without credentials, as every metadata request is (docs/contract.md#protected-resource-metadata).
      return { status: 204, headers: { ...headers, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-allow-headers': '*' }, body: '' };
    }
    if (method !== 'GET' && method !== 'HEAD') {
      return { status: 405, headers: { ...headers, allow: 'GET, HEAD, OPTIONS' }, body: JSON.stringify({ message: 'Method not allowed', code: 'METHOD_NOT_SUPPORTED' }) };
    }
    // Each answer its own headers: a runtime may write into the object it is given (@hono/node-server
    // adds `Content-Length` to a plain one), and the shared one would then frame every later answer,
    // a 405's shorter body included, with this document's length.
    return { status: 200, headers: { ...headers }, body: method === 'HEAD' ? '' : body };
  };
  responders.set(document, responder);
  return responder;
}

/**
 * The responder of the metadata a handler serves: the protected resource's at the path-aware URL
 * of its resource and at the bare well-known path (RFC 9728 §3.1), and the authorization server's
 * at the well-known path with the issuer's path appended (RFC 8414 §3.1).
 */
export function metadataResponder(option: ResourceMetadataOption): MetadataResponder {
  const { resourceMetadata, authorizationServerMetadata } = option;
  const resource =
    resourceMetadata === undefined
      ? undefined
      : documentResponder(resourceMetadata, () => new Set([new URL(resourceMetadataUrl(resourceMetadata.resource)).pathname, RESOURCE_METADATA_PATH]));
  const server =
    authorizationServerMetadata === undefined
      ? undefined
      : documentResponder(authorizationServerMetadata, () => new Set([authorizationServerMetadataPath(authorizationServerMetadata.issuer)]));
  if (resource === undefined) return server ?? NONE;
  if (server === undefined) return resource;
  return (method, pathname) => resource(method, pathname) ?? server(method, pathname);
}

/**
 * The path of an issuer's metadata (RFC 8414 §3.1): the well-known path, then the issuer's path
 * without a terminating `/` (`https://as.example/tenant/` → `/.well-known/oauth-authorization-server/tenant`).
 *
 * @example
 * ```ts
 * authorizationServerMetadataPath('https://as.example'); // '/.well-known/oauth-authorization-server'
 * ```
 */
export function authorizationServerMetadataPath(issuer: string): string {
  // RFC 8414 §3.1: a terminating `/` of the issuer's path is removed first.
  const path = new URL(issuer).pathname.replace(/\/$/, '');
  return `${AUTHORIZATION_SERVER_METADATA_PATH}${path}`;
}

/** A metadata answer as a Fetch `Response`. */
export function metadataResponse(answer: MetadataAnswer): Response {
  return new Response(answer.body === '' ? null : answer.body, { status: answer.status, headers: answer.headers });
}
