/**
 * Writes one operation's security: its requirement, the 401/403 responses its readers and
 * trpc-to-openapi's own checks answer with, and the 503 of a verifier that cannot answer.
 * @module
 */
import type { OpenAPIObject } from 'trpc-to-openapi';
import type { ProcedureSecurity } from '@trpc-oauth2/core/protocol';
import { challengeResponse } from './challenge-response.js';
import type { Operation, Responses } from './document-types.js';
import type { OpenApiOperation } from './openapi-operations.js';
import { documentFormBody, readsPasswordForm } from './token-endpoint-form-body.js';
import { securityChallenges, type SecurityChallenge } from './security-challenges.js';
import { documentChainRefusals, documentTokenEndpoint } from './token-endpoint-responses.js';
import { dpopSchemeOf } from './dpop-scheme.js';
import { callsVerifier, verifierUnavailableResponse } from './verifier-unavailable.js';

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
 * The ways to pass one scheme: itself; with its DPoP scheme as an alternative when its reader
 * allows DPoP; its DPoP scheme alone when the reader requires it (docs/contract.md#dpop).
 */
function schemeOptions(name: string, scopes: string[], security: ProcedureSecurity): Record<string, string[]>[] {
  const declaration = security.declarations.find((candidate) => candidate.schemeName === name && candidate.dpop !== undefined);
  const dpop = declaration === undefined ? undefined : dpopSchemeOf(declaration);
  if (dpop === undefined) return [{ [name]: scopes }];
  return declaration!.dpop!.dpop_bound_access_tokens_required ? [{ [dpop.name]: scopes }] : [{ [name]: scopes }, { [dpop.name]: scopes }];
}

/**
 * One requirement of the chain (schemes passed together) as written. Its schemes are passed
 * with one credential, the one `Authorization` value every step reads, so in one scheme: all as
 * Bearer (when no reader of them requires DPoP) or all with DPoP (when every reader of them
 * accepts it), never some of each. A requirement no single scheme passes (a reader that requires
 * DPoP beside one without it) is written with each scheme's ways, as the chain names them.
 */
function requirementsOf(requirement: Record<string, string[]>, security: ProcedureSecurity): Record<string, string[]>[] {
  const options = Object.entries(requirement).map(([name, scopes]) => schemeOptions(name, scopes, security));
  const isDPoP = (option: Record<string, string[]>) => Object.keys(option).some((name) => schemeDPoP(name, security));
  const bearer = options.map((ways) => ways.find((way) => !isDPoP(way)));
  const dpop = options.map((ways) => ways.find(isDPoP));
  const together = (ways: (Record<string, string[]> | undefined)[]) => Object.assign({}, ...ways) as Record<string, string[]>;
  const written = [
    ...(bearer.every((way) => way !== undefined) ? [together(bearer)] : []),
    ...(options.length > 0 && dpop.every((way) => way !== undefined) ? [together(dpop)] : []),
  ];
  if (written.length > 0) return written;
  let each: Record<string, string[]>[] = [{}];
  for (const ways of options) each = each.flatMap((partial) => ways.map((way) => ({ ...partial, ...way })));
  return each;
}

/** Whether `name` is the DPoP scheme of one of the chain's readers. */
function schemeDPoP(name: string, security: ProcedureSecurity): boolean {
  return security.declarations.some((declaration) => dpopSchemeOf(declaration)?.name === name);
}

/**
 * The chain's requirements with the application's own schemes of a `protect: true` operation:
 * OpenAPI reads the listed requirements as alternatives, one of which suffices, so where the
 * chain's readers refuse a request without their credential (a reader without `autoError: false`,
 * scopes of a verified reader, a step-up) an own scheme is never enough alone: each is listed
 * beside each of the chain's requirements, to be passed together. Where the chain lets anonymous
 * requests through, or there is no reader, each own scheme is an alternative of its own.
 */
function withOwnSchemes(chain: Record<string, string[]>[], own: readonly string[], optional: boolean): Record<string, string[]>[] {
  if (own.length === 0) return chain;
  const alone = own.map((name) => ({ [name]: [] }));
  if (chain.length === 0 || optional) return [...chain, ...alone];
  return chain.flatMap((requirement) => alone.map((scheme) => ({ ...requirement, ...scheme })));
}

/** trpc-to-openapi's own refusals of a `protect: true` operation, answered by the application's own middleware. */
const OWN_REFUSALS: readonly SecurityChallenge[] = [
  { status: 401, description: 'Authorization not provided' },
  { status: 403, description: 'Insufficient access' },
];

/**
 * Writes one operation's security as its procedure's chain declares it (`security`, read once by
 * `getProcedureSecurity`), over what trpc-to-openapi wrote (every scheme, no scopes, generic 401
 * and 403 on every operation not marked `protect: false`):
 * - `security`: the requirements the chain enforces (`getProcedureSecurity`'s `requirements`:
 *   one per scheme without a verified reader; with one, the schemes every step passes together,
 *   each with every scope of the chain), and `{}` besides when authentication is optional; none
 *   without a reader;
 * - with `protect: true` in the meta, the application's own schemes too (`ownSchemes`: an API
 *   key, HTTP basic… that no reader declares), with no scope, as trpc-to-openapi lists them: each
 *   beside each of the chain's requirements when the chain refuses anonymous requests (a request
 *   must pass its readers too), else one requirement each; and then never `{}`;
 * - 401 and 403: each refusal the chain can answer, with its `WWW-Authenticate` challenge, and
 *   trpc-to-openapi's generic ones besides when `protect: true` brings own schemes or there is
 *   no reader; none without a reader or `protect: true`, unless the meta lists `errorResponses`;
 * - 503 when the chain holds a verified reader (`verify`, an `anyOf` group, a DPoP reader with
 *   `verify`): its verifier's authorization server cannot answer (`SERVICE_UNAVAILABLE`), with
 *   trpc-to-openapi's error body; a 503 the meta lists in `errorResponses` is kept as given;
 * - a token or revocation endpoint (core's `tokenEndpoint` / `revocationEndpoint`): its form, its
 *   grants and its RFC 6749 responses (see `documentTokenEndpoint`);
 * - a password request form's body as `application/x-www-form-urlencoded`, unless the meta lists `contentTypes`.
 *
 * See `docs/contract.md#openapi`.
 */
export function documentOperation(
  document: OpenAPIObject,
  op: OpenApiOperation,
  security: ProcedureSecurity | undefined,
  ownSchemes: readonly string[] = [],
): void {
  const operation: Operation | undefined = document.paths?.[op.path]?.[op.method];
  if (operation === undefined) return;
  const responses: Responses = operation.responses ?? {};
  // docs/contract.md#openapi: `protect: true` adds the application's own schemes; on a chain with
  // a reader and no such scheme it only says what the reader already does.
  const own = op.openapi.protect === true ? ownSchemes : [];
  const ownRefusals = op.openapi.protect === true && (security === undefined || own.length > 0);
  const generated = Object.fromEntries(SECURITY_STATUSES.map((status) => [status, responses[status]]));
  if (op.openapi.errorResponses === undefined && !ownRefusals) for (const status of SECURITY_STATUSES) delete responses[status];

  // What the chain enforces (docs/contract.md#openapi), each scheme that accepts DPoP by its DPoP ways too.
  const chain = (security?.requirements ?? []).flatMap((requirement) => requirementsOf(requirement, security!));
  const requirements = withOwnSchemes(chain, own, security?.optional === true);
  if (requirements.length === 0) delete operation.security;
  else operation.security = security?.optional && own.length === 0 ? [...requirements, {}] : requirements;

  if (security !== undefined) {
    const challenges = securityChallenges(security);
    if (ownRefusals && op.openapi.errorResponses === undefined) challenges.push(...OWN_REFUSALS);
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
    // A reader on the endpoint's own procedure refuses before the grant does, in §5.2's shape.
    if (security !== undefined) documentChainRefusals(operation, securityChallenges(security));
    // The meta's own responses (e.g. an application's 429) stay as they were given.
    Object.assign(operation.responses, Object.fromEntries(listedStatuses(op.openapi.errorResponses).map((status) => [status, responses[status]]).filter(([, r]) => r !== undefined)));
  } else {
    if (readsPasswordForm(op.procedure) && op.openapi.contentTypes === undefined) documentFormBody(operation);
    // Only the meta's `errorResponses` can have written a 503 already (trpc-to-openapi lists none
    // by itself): the application's own account of it stays.
    if (security !== undefined && callsVerifier(security)) operation.responses['503'] ??= verifierUnavailableResponse(document);
  }
  operation.responses = byStatus(operation.responses ?? {});
}

/**
 * The statuses a meta's `errorResponses` lists, in either of the forms trpc-to-openapi takes: a
 * list of statuses (`[429]`) or a record of status to description (`{ 429: 'Slow down' }`).
 */
function listedStatuses(errorResponses: readonly number[] | Readonly<Record<number, string>> | undefined): string[] {
  if (errorResponses === undefined) return [];
  return Array.isArray(errorResponses) ? errorResponses.map(String) : Object.keys(errorResponses);
}
