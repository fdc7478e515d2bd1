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
 * chain: every reader's scheme beside your own `securitySchemes` (two different schemes under
 * one name throw {@link SecuritySchemeConflictError}, a name OpenAPI does not allow as a component
 * key throws a `TypeError`), each operation's requirement with exactly
 * the scopes its chain accumulated (`{}` when authentication is optional), its 401 / 403
 * challenges and, with a verified reader, the 503 of a verifier that cannot answer, the token and
 * revocation endpoints' form bodies and RFC 6749 responses, and error bodies as trpc-to-openapi
 * sends them. What `protect: true` adds, and the rest, is in
 * `docs/contract.md#openapi`.
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
  assertSchemeNames(securitySchemes);
  const readerSchemes = new Set(securities.flatMap((security) => Object.keys(security?.schemes ?? {})));
  const ownSchemes = Object.keys(given ?? {}).filter((name) => !readerSchemes.has(name));
  const document = generateOpenApiDocument(router, { ...opts, securitySchemes });
  assertUniqueOperationIds(document);
  // trpc-to-openapi's default scheme stands in for the application's only where no reader does:
  // without schemes of your own, `protect: true` on a chain with a reader changes nothing.
  const defaulted = opts.securitySchemes === undefined;
  operations.forEach((op, i) => documentOperation(document, op, securities[i], defaulted && securities[i] !== undefined ? [] : ownSchemes));
  return truthfulBodies(document);
}

/** The keys OpenAPI 3.1 allows in `components` (§4.8.7.1), `securitySchemes` included. */
const COMPONENT_NAME = /^[a-zA-Z0-9._-]+$/;

/**
 * A scheme's name is its key in `components.securitySchemes`, which OpenAPI 3.1 allows only as
 * `^[a-zA-Z0-9._-]+$` (§4.8.7.1): a reader's `schemeName` or an own scheme named otherwise (a
 * space, a `/`) would give a document no validator or code generator accepts, so generation
 * stops instead (docs/contract.md#openapi).
 */
function assertSchemeNames(securitySchemes: Readonly<Record<string, unknown>>): void {
  for (const name of Object.keys(securitySchemes)) {
    if (!COMPONENT_NAME.test(name)) {
      throw new TypeError(`The security scheme name ${JSON.stringify(name)} is not an OpenAPI component name (letters, digits, ".", "-" and "_" only): rename it (a reader's schemeName, a key of securitySchemes)`);
    }
  }
}

/**
 * OpenAPI requires each `operationId` once (§4.8.10.1): trpc-to-openapi names an operation after
 * its procedure's path with `.` as `-`, so `a.b` and a procedure named `a-b` get the same one,
 * and a client generated from the document would call one for the other.
 */
function assertUniqueOperationIds(document: OpenAPIObject): void {
  const seen = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item ?? {})) {
      const id = (operation as { operationId?: unknown } | undefined)?.operationId;
      if (typeof id !== 'string') continue;
      const here = `${method.toUpperCase()} ${path}`;
      const first = seen.get(id);
      if (first !== undefined) {
        throw new TypeError(`Two operations have the operationId "${id}" (${first} and ${here}): give one its own with meta.openapi.operationId`);
      }
      seen.set(id, here);
    }
  }
}
