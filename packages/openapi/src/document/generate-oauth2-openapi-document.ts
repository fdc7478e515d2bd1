import { generateOpenApiDocument, type GenerateOpenApiDocumentOptions, type OpenAPIObject, type OpenApiRouter } from 'trpc-to-openapi';
import { chainSecurity } from './chain-security.js';
import { collectSecuritySchemes } from './collect-security-schemes.js';
import { documentOperation } from './document-operation.js';
import { truthfulBodies } from './error-bodies.js';
import { listOpenApiOperations } from './openapi-operations.js';

/**
 * trpc-to-openapi's `generateOpenApiDocument`, with the security read from each procedure's
 * chain, the single source of truth:
 * - `components.securitySchemes`: the oauth2 scheme (flows, URLs, scopes, description) of every
 *   reader the documented procedures use, beside any `securitySchemes` you pass. Two different
 *   schemes under one name throw {@link SecuritySchemeConflictError};
 * - each operation behind a reader: `security` naming its schemes with exactly the scopes its
 *   chain accumulated (and `{}` when authentication is optional); 401 / 403 responses with the
 *   `WWW-Authenticate` challenge each sends. Operations without a reader list no security;
 * - a token endpoint (input `passwordRequestForm` / `passwordRequestFormStrict`): its body as
 *   `application/x-www-form-urlencoded`, with `grant_type`'s pattern and the `format: password` fields;
 * - a token or revocation endpoint built with core's `tokenEndpoint` / `revocationEndpoint`: its
 *   form with `grant_type` an enum of the registered grants and every grant's fields, its RFC 6749
 *   §5.1 / §5.2 responses with `Cache-Control: no-store`;
 * - error bodies as trpc-to-openapi sends them (with the error shape's `data`), and no
 *   ±9007199254740991 bounds on integers.
 *
 * @example
 * ```ts
 * const document = generateOAuth2OpenApiDocument(appRouter, { title: 'Demo', version: '1.0.0', baseUrl: 'http://127.0.0.1:3000/api' });
 * document.paths['/me'].get.security; // [{ OAuth2PasswordBearer: ['me'] }]
 * ```
 */
export function generateOAuth2OpenApiDocument<$Meta = Record<string, unknown>>(
  router: OpenApiRouter,
  opts: GenerateOpenApiDocumentOptions<$Meta>,
): OpenAPIObject {
  const operations = listOpenApiOperations(router, opts.filter);
  const securities = operations.map((op) => chainSecurity(op.procedure));
  const securitySchemes = collectSecuritySchemes(securities, opts.securitySchemes);
  const document = generateOpenApiDocument(router, { ...opts, securitySchemes });
  operations.forEach((op, i) => documentOperation(document, op, securities[i]));
  return truthfulBodies(document);
}
