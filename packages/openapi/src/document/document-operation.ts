import type { OpenAPIObject } from 'trpc-to-openapi';
import type { ChainSecurity } from './chain-security.js';
import { challengeResponse } from './challenge-response.js';
import type { Operation, Responses } from './document-types.js';
import type { OpenApiOperation } from './openapi-operations.js';
import { documentFormBody, readsPasswordForm } from './token-endpoint-form-body.js';
import { securityChallenges } from './security-challenges.js';
import { documentTokenEndpoint } from './token-endpoint-responses.js';

/** trpc-to-openapi's error body, for a refusal it did not document itself. */
const ERROR_BODY = {
  'application/json': {
    schema: {
      type: 'object',
      properties: { message: { type: 'string' }, code: { type: 'string' } },
      required: ['message', 'code'],
    },
  },
};

const SECURITY_STATUSES = ['401', '403'];

const byStatus = (responses: Responses): Responses =>
  Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));

/**
 * Writes one operation's security as its procedure's chain declares it (`security`, read once by
 * `chainSecurity`), over what
 * trpc-to-openapi wrote (every scheme, no scopes, generic 401 and 403 on every operation not
 * marked `protect: false`):
 * - `security`: one requirement per scheme, with the scopes the chain accumulated for it, and
 *   `{}` besides when authentication is optional; none without a reader;
 * - 401 and 403: each refusal the chain can answer, with its `WWW-Authenticate` challenge; none
 *   without a reader, unless the meta lists `errorResponses` itself;
 * - a token or revocation endpoint (core's `tokenEndpoint` / `revocationEndpoint`): its form, its
 *   grants and its RFC 6749 responses (see `documentTokenEndpoint`);
 * - a password request form's body as `application/x-www-form-urlencoded`, unless the meta lists `contentTypes`.
 *
 * @example
 * ```ts
 * for (const op of listOpenApiOperations(appRouter)) documentOperation(document, op, chainSecurity(op.procedure));
 * ```
 */
export function documentOperation(document: OpenAPIObject, op: OpenApiOperation, security: ChainSecurity | undefined): void {
  const operation: Operation | undefined = document.paths?.[op.path]?.[op.method];
  if (operation === undefined) return;
  const responses: Responses = operation.responses ?? {};
  const generated = Object.fromEntries(SECURITY_STATUSES.map((status) => [status, responses[status]]));
  if (op.openapi.errorResponses === undefined) for (const status of SECURITY_STATUSES) delete responses[status];

  if (security === undefined) delete operation.security;
  else {
    // docs/contract.md#openapi: one requirement per scheme (as FastAPI lists one per dependency), scopes merged.
    const requirements = Object.entries(security.requirement).map(([name, scopes]) => ({ [name]: scopes }));
    operation.security = security.optional ? [...requirements, {}] : requirements;
    const challenges = securityChallenges(security);
    for (const status of new Set(challenges.map((refusal) => String(refusal.status)))) {
      const content = (responses[status] ?? generated[status])?.content ?? ERROR_BODY;
      responses[status] = challengeResponse(
        challenges.filter((refusal) => String(refusal.status) === status),
        content,
      );
    }
  }
  operation.responses = responses;
  if (documentTokenEndpoint(operation, op.procedure, op.openapi.contentTypes)) {
    // The meta's own responses (e.g. an application's 429) stay as they were given.
    Object.assign(operation.responses, Object.fromEntries(Object.keys(op.openapi.errorResponses ?? {}).map((status) => [status, responses[status]]).filter(([, r]) => r !== undefined)));
  } else if (readsPasswordForm(op.procedure) && op.openapi.contentTypes === undefined) documentFormBody(operation);
  operation.responses = byStatus(operation.responses ?? {});
}
