import { generateOAuth2OpenApiDocument } from '@trpc-oauth2/openapi';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from './router.js';

/**
 * The OpenAPI documents the demo serves: the demo API, and the conformance routes apart, so
 * that Swagger UI's Authorize dialog for the API shows only the API's own scheme, and the
 * conformance document compares one to one with the FastAPI application's.
 *
 * @example
 * ```ts
 * const { api, conformance } = demoDocuments();
 * api.paths?.['/users/me']?.get?.security; // [{ DemoPassword: ['me'] }]
 * ```
 */
export interface DemoDocuments {
  api: OpenAPIObject;
  conformance: OpenAPIObject;
}

const VERSION = '0.1.0';

const NO_STORE_HEADERS = {
  'Cache-Control': { description: 'Always `no-store`: token responses are never cached', schema: { type: 'string', const: 'no-store' } },
};

const tokenError = (description: string, codes: readonly string[]) => ({
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
 * `token-endpoint.ts`): document what it really sends.
 */
function documentTokenResponses(document: OpenAPIObject): OpenAPIObject {
  const operation = document.paths?.['/token']?.post;
  if (operation === undefined) return document;
  const success = operation.responses?.['200'];
  operation.responses = {
    ...(success === undefined ? {} : { '200': { ...success, headers: NO_STORE_HEADERS } }),
    '400': tokenError('RFC 6749 §5.2 error', ['invalid_request', 'invalid_grant', 'unsupported_grant_type', 'invalid_scope']),
    '401': {
      ...tokenError('Client authentication failed', ['invalid_client']),
      headers: { ...NO_STORE_HEADERS, 'WWW-Authenticate': { schema: { type: 'string', const: 'Basic' } } },
    },
    '413': tokenError('Request body too large', ['invalid_request']),
    '415': tokenError('Unsupported Content-Type', ['invalid_request']),
    '429': {
      ...tokenError('Too many failed logins for this username or from this address', ['slow_down']),
      headers: {
        ...NO_STORE_HEADERS,
        'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
      },
    },
  };
  return document;
}
const isConformance = (path: string) => path.startsWith('/conformance/');

/**
 * Generates both documents from the router; the servers entry is the relative `/api`, so
 * they work on whatever host and port the demo listens.
 *
 * @example
 * ```ts
 * const documents = demoDocuments();
 * ```
 */
export function demoDocuments(): DemoDocuments {
  return {
    api: documentTokenResponses(generateOAuth2OpenApiDocument(appRouter, {
      title: 'trpc-oauth2 demo',
      description:
        'An OAuth 2.0 password-flow API built with tRPC and trpc-oauth2. Click **Authorize**, log in as ' +
        '`alice` / `wonderland` (scopes `me`, `items`) or `bob` / `builder` (scope `me`), then try the operations.',
      version: VERSION,
      baseUrl: '/api',
      filter: ({ metadata }) => !isConformance(metadata.openapi.path),
    })),
    conformance: generateOAuth2OpenApiDocument(appRouter, {
      title: 'trpc-oauth2 conformance routes',
      description: 'One route per reader, answering what it read, to compare with FastAPI request by request.',
      version: VERSION,
      baseUrl: '/api',
      filter: ({ metadata }) => isConformance(metadata.openapi.path),
    }),
  };
}
