/**
 * The 503 of an operation whose chain verifies tokens: a verifier whose authorization server
 * cannot answer (its key set unreachable, its introspection endpoint failing) throws tRPC's
 * `SERVICE_UNAVAILABLE`, which the reader passes on (docs/contract.md#verified-readers).
 * @module
 */
import type { OpenAPIObject } from 'trpc-to-openapi';
import type { ProcedureSecurity } from '@trpc-oauth2/core/protocol';
import type { ResponseObject } from './document-types.js';

const CODE = 'SERVICE_UNAVAILABLE';
/** trpc-to-openapi's name for the error body of a tRPC code, which `truthfulBodies` completes. */
const SCHEMA = `error.${CODE}`;

/**
 * The error body as trpc-to-openapi writes one (`{ message, code }`), for a document in which no
 * operation's meta listed a 503 itself. `truthfulBodies` then adds the `data` the router's
 * `errorFormatter` sends (its `oauth2` is `null`: the fault is no OAuth 2.0 refusal). The example
 * message is the one `@trpc-oauth2/jwt`'s verifiers send; no `issues`, which only input errors carry.
 */
const unavailableBody = () => ({
  type: 'object',
  properties: {
    message: { type: 'string', description: 'The error message', example: 'The token verifier is unavailable' },
    code: { type: 'string', description: 'The error code', example: CODE },
  },
  required: ['message', 'code'],
  title: 'Service unavailable error (503)',
  description: 'The error information',
  example: { message: 'The token verifier is unavailable', code: CODE },
});

/**
 * Whether the chain holds a verified reader (a reader given `verify`, an `anyOf` group, a DPoP
 * reader with `verify`; or a `requireScopes` step of one, which consults its reader): the only
 * steps that call a verifier, so the only ones that can answer for an authorization server that
 * is down.
 */
export const callsVerifier = (security: ProcedureSecurity): boolean => security.declarations.some((declaration) => declaration.verified === true);

/**
 * The 503 a verified chain answers when its verifier cannot reach its authorization server: the
 * body trpc-to-openapi sends for the fault (`error.SERVICE_UNAVAILABLE`, registered in the
 * document's components when missing), without `WWW-Authenticate` (the token may be good: it is
 * no refusal) and without `Retry-After` (the library sends none).
 */
export function verifierUnavailableResponse(document: OpenAPIObject): ResponseObject {
  const components = (document.components ??= {});
  const schemas = (components.schemas ??= {}) as Record<string, unknown>;
  schemas[SCHEMA] ??= unavailableBody();
  return {
    description:
      'The token cannot be verified for now (a `SERVICE_UNAVAILABLE` fault): its verifier cannot reach the authorization server (key set, introspection endpoint); the client may try again later',
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${SCHEMA}` } } },
  };
}
