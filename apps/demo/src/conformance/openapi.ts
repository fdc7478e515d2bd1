import { generateOAuth2OpenApiDocument } from '@trpc-oauth2/openapi';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { DOCUMENT_VERSION } from '../api/openapi.js';
import { conformanceRouter } from './router.js';

/**
 * The conformance routes' OpenAPI document, served at `/openapi/conformance.json` apart from the
 * API's, so that it compares one to one with the FastAPI application's. Its servers entry is the
 * relative `/api`, where the routes are served.
 *
 * @example
 * ```ts
 * conformanceDocument().paths?.['/conformance/password']?.get?.security; // [{ OAuth2PasswordBearer: [] }]
 * ```
 */
export function conformanceDocument(): OpenAPIObject {
  return generateOAuth2OpenApiDocument(conformanceRouter, {
    title: 'trpc-oauth2 conformance routes',
    description: 'One route per reader, answering what it read, to compare with FastAPI request by request.',
    version: DOCUMENT_VERSION,
    baseUrl: '/api',
  });
}
