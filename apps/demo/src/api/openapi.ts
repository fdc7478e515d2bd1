import { generateOAuth2OpenApiDocument } from '@trpc-oauth2/openapi';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { apiRouter } from './router.js';

/**
 * The version of the demo's OpenAPI documents (the API's and the conformance routes').
 *
 * @example
 * ```ts
 * generateOAuth2OpenApiDocument(router, { title: 'trpc-oauth2 demo', version: DOCUMENT_VERSION, baseUrl: '/api' });
 * ```
 */
export const DOCUMENT_VERSION = '0.1.0';

/**
 * The library documents the token endpoint's RFC 6749 responses; the login throttle's 429 is the
 * demo's own: its body is RFC 6749's shape with `slow_down`, and it carries `Retry-After`.
 */
function documentThrottle(document: OpenAPIObject): OpenAPIObject {
  const responses = document.paths?.['/token']?.post?.responses;
  const throttled = responses?.['429'] as { description: string } | undefined;
  if (responses === undefined || throttled === undefined) return document;
  responses['429'] = {
    description: throttled.description,
    headers: {
      'Cache-Control': { description: 'Always `no-store`', schema: { type: 'string', const: 'no-store' } },
      'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
    },
    content: {
      'application/json': {
        schema: {
          type: 'object',
          properties: { error: { type: 'string', enum: ['slow_down'] }, error_description: { type: 'string' } },
          required: ['error', 'error_description'],
        },
      },
    },
  };
  return document;
}
/**
 * Every 503 the document lists is the database's in the demo, and carries `Retry-After`: its faces add it to each
 * `SERVICE_UNAVAILABLE` (the database cannot be reached; `DATABASE_RETRY_AFTER_SECONDS`), which the
 * library, sending none itself, does not document.
 */
function documentRetryAfter(document: OpenAPIObject): OpenAPIObject {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations as Record<string, { responses?: Record<string, { headers?: Record<string, unknown> }> }>)) {
      const unavailable = operation?.responses?.['503'];
      if (unavailable === undefined) continue;
      // The demo verifies its tokens with keys it holds: its 503 is its database's, whatever the
      // library's description names (an authorization server out of reach).
      (unavailable as { description?: string }).description =
        'The database cannot be reached for now (stopped, restarting, or not answering): try again after `Retry-After` seconds';
      unavailable.headers = {
        ...unavailable.headers,
        'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
      };
    }
  }
  return document;
}

/**
 * The demo API's OpenAPI document, served at `/openapi.json`: generated from the router, with
 * the token endpoint's RFC 6749 responses (the library's), its 429 (the demo's throttle) and the
 * `Retry-After` of every 503 (the demo's, when its database is down). The servers entry is the relative `/api`, so it works
 * on whatever host and port the demo listens. Swagger UI's Authorize dialog for it shows only
 * the API's own schemes (both ways in): the conformance routes have a document of their own.
 *
 * @example
 * ```ts
 * apiDocument().paths?.['/users/me']?.get?.security; // [{ DemoPassword: ['me'] }, { DemoAuthorizationCode: ['me'] }]
 * ```
 */
export function apiDocument(): OpenAPIObject {
  return documentRetryAfter(documentThrottle(
    generateOAuth2OpenApiDocument(apiRouter, {
      title: 'trpc-oauth2 demo',
      description:
        'An OAuth 2.0 API built with tRPC and trpc-oauth2, with two ways in: the authorization-code flow with PKCE at ' +
        'the authorization server at `/oidc`, or the password flow at its own token endpoint. Click **Authorize**, log in ' +
        'as `alice` / `wonderland` (scopes `me`, `items`) or `bob` / `builder` (scope `me`), then try the operations.',
      version: DOCUMENT_VERSION,
      baseUrl: '/api',
    }),
  ));
}
