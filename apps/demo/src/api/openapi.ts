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

const NO_STORE_HEADERS = {
  'Cache-Control': { description: 'Always `no-store`: token responses are never cached', schema: { type: 'string', const: 'no-store' } },
};

const errorResponse = (description: string, codes: readonly string[]) => ({
  description,
  headers: NO_STORE_HEADERS,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { error: { type: 'string', enum: codes }, error_description: { type: 'string' } },
        required: ['error', 'error_description'],
      },
    },
  },
});

/**
 * The token endpoint answers RFC 6749 §5.2 bodies, not trpc-to-openapi's error shape (see
 * `auth/token-endpoint/rest-route.ts`): document what it really sends.
 */
function documentTokenResponses(document: OpenAPIObject): OpenAPIObject {
  const operation = document.paths?.['/token']?.post;
  if (operation === undefined) return document;
  const success = operation.responses?.['200'];
  operation.responses = {
    ...(success === undefined ? {} : { '200': { ...success, headers: NO_STORE_HEADERS } }),
    '400': errorResponse('RFC 6749 §5.2 error', ['invalid_request', 'invalid_grant', 'unsupported_grant_type', 'invalid_scope']),
    '401': {
      ...errorResponse('Client authentication failed', ['invalid_client']),
      headers: { ...NO_STORE_HEADERS, 'WWW-Authenticate': { schema: { type: 'string', const: 'Basic' } } },
    },
    '413': errorResponse('Request body too large', ['invalid_request']),
    '415': errorResponse('Unsupported Content-Type', ['invalid_request']),
    '429': {
      ...errorResponse('Too many failed logins for this username or from this address', ['slow_down']),
      headers: {
        ...NO_STORE_HEADERS,
        'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
      },
    },
  };
  return document;
}
/**
 * The demo API's OpenAPI document, served at `/openapi.json`: generated from the router, with
 * the token endpoint's RFC 6749 responses. The servers entry is the relative `/api`, so it works
 * on whatever host and port the demo listens. Swagger UI's Authorize dialog for it shows only
 * the API's own schemes (both ways in): the conformance routes have a document of their own.
 *
 * @example
 * ```ts
 * apiDocument().paths?.['/users/me']?.get?.security; // [{ DemoPassword: ['me'] }, { DemoAuthorizationCode: ['me'] }]
 * ```
 */
export function apiDocument(): OpenAPIObject {
  return documentTokenResponses(
    generateOAuth2OpenApiDocument(apiRouter, {
      title: 'trpc-oauth2 demo',
      description:
        'An OAuth 2.0 API built with tRPC and trpc-oauth2, with two ways in: the authorization-code flow with PKCE at ' +
        'the authorization server at `/oidc`, or the password flow at its own token endpoint. Click **Authorize**, log in ' +
        'as `alice` / `wonderland` (scopes `me`, `items`) or `bob` / `builder` (scope `me`), then try the operations.',
      version: DOCUMENT_VERSION,
      baseUrl: '/api',
    }),
  );
}
