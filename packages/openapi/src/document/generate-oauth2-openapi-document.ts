/**
 * `generateOAuth2OpenApiDocument`: trpc-to-openapi's document with the security read from each
 * procedure's chain, the single source of truth.
 * @module
 */
import {
  generateOpenApiDocument,
  type GenerateOpenApiDocumentOptions,
  type OpenAPIObject,
  type OpenApiRouter,
  type SecuritySchemeObject,
} from 'trpc-to-openapi';
import { getProcedureSecurity } from '@trpc-oauth2/core/protocol';
import { collectSecuritySchemes } from './collect-security-schemes.js';
import { documentOperation } from './document-operation.js';
import { truthfulBodies } from './error-bodies.js';
import { listOpenApiOperations } from './openapi-operations.js';

/** trpc-to-openapi's scheme when it is given none, for `protect: true` operations. */
const TRPC_TO_OPENAPI_DEFAULT_SCHEMES = { Authorization: { type: 'http', scheme: 'bearer' } } as const satisfies Record<string, SecuritySchemeObject>;

/**
 * trpc-to-openapi's `generateOpenApiDocument`, with the security read from each procedure's
 * chain, the single source of truth:
 * - `components.securitySchemes`: the oauth2 scheme (flows, URLs, scopes, description) of every
 *   reader the documented procedures use, beside the `securitySchemes` you pass (your own: an API
 *   key, HTTP basic…). Two different schemes under one name throw {@link SecuritySchemeConflictError};
 * - each operation behind a reader: `security` naming its schemes with exactly the scopes its
 *   chain accumulated (and `{}` when authentication is optional); 401 / 403 responses with the
 *   `WWW-Authenticate` challenge each sends. Operations without a reader list no security;
 * - each operation whose meta says `protect: true`: your own schemes as well (those no reader
 *   declares; when you pass none and such an operation has no reader, trpc-to-openapi's
 *   `Authorization` bearer scheme), and trpc-to-openapi's 401 / 403 beside the chain's, so
 *   schemes mix and none is dropped;
 * - a token endpoint (input `passwordRequestForm` / `passwordRequestFormStrict`): its body as
 *   `application/x-www-form-urlencoded`, with `grant_type`'s pattern and the `format: password` fields;
 * - a token or revocation endpoint built with core's `tokenEndpoint` / `revocationEndpoint`: its
 *   form with `grant_type` an enum of the registered grants and every grant's fields, its RFC 6749
 *   §5.1 / §5.2 responses with `Cache-Control: no-store`;
 * - error bodies as trpc-to-openapi sends them (with the error shape's `data`), and no
 *   ±9007199254740991 bounds on integers.
 *
 * See `docs/contract.md#openapi`.
 *
 * @example
 * ```ts
 * const document = generateOAuth2OpenApiDocument(appRouter, {
 *   title: 'Demo',
 *   version: '1.0.0',
 *   baseUrl: 'http://127.0.0.1:3000/api',
 *   securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
 * });
 * document.paths['/me'].get.security; // [{ OAuth2PasswordBearer: ['me'] }]
 * document.paths['/stats'].get.security; // [{ ApiKey: [] }] (meta: { openapi: { …, protect: true } })
 * ```
 */
export function generateOAuth2OpenApiDocument<$Meta = Record<string, unknown>>(
  router: OpenApiRouter,
  opts: GenerateOpenApiDocumentOptions<$Meta>,
): OpenAPIObject {
  const operations = listOpenApiOperations(router, opts.filter);
  const securities = operations.map((op) => getProcedureSecurity(op.procedure));
  // Without schemes of your own, trpc-to-openapi's default documents `protect: true` operations that have no reader.
  const unread = operations.some((op, i) => op.openapi.protect === true && securities[i] === undefined);
  const given = opts.securitySchemes ?? (unread ? TRPC_TO_OPENAPI_DEFAULT_SCHEMES : undefined);
  const securitySchemes = collectSecuritySchemes(securities, given);
  const readerSchemes = new Set(securities.flatMap((security) => Object.keys(security?.schemes ?? {})));
  const ownSchemes = Object.keys(given ?? {}).filter((name) => !readerSchemes.has(name));
  const document = generateOpenApiDocument(router, { ...opts, securitySchemes });
  operations.forEach((op, i) => documentOperation(document, op, securities[i], ownSchemes));
  return truthfulBodies(document);
}
