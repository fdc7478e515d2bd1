/**
 * Documents a token or revocation endpoint: its grants' form body, its RFC 6749 §5.1 success and
 * §5.2 refusals (RFC 9449's DPoP ones when it checks proofs), and the no-store headers of every answer.
 * @module
 */
import { getTokenEndpoint, type TokenEndpointDeclaration } from '@trpc-oauth2/core/protocol';
import { TOKEN_RESPONSE_HEADERS } from '@trpc-oauth2/core/token-endpoint';
import { JSON_MEDIA_TYPE, URLENCODED } from '../body/media-type.js';
import { DOCUMENTED_DPOP_NONCE } from './challenge-response.js';
import type { Operation, ResponseObject } from './document-types.js';
import type { SecurityChallenge } from './security-challenges.js';

/** The document's account of core's `TOKEN_RESPONSE_HEADERS`, which every answer of the endpoint carries. */
const DOCUMENTED_NO_STORE = {
  'Cache-Control': {
    description: 'Always `no-store`: token responses are never cached (RFC 6749 §5.1)',
    schema: { type: 'string', const: TOKEN_RESPONSE_HEADERS['cache-control'] },
  },
  Pragma: { description: 'Always `no-cache`', schema: { type: 'string', const: TOKEN_RESPONSE_HEADERS.pragma } },
};

/** The RFC 6749 §5.2 body, with the codes a status may carry. */
const errorBody = (codes: readonly string[], example: string) => ({
  [JSON_MEDIA_TYPE]: {
    schema: {
      type: 'object',
      properties: {
        error: { type: 'string', enum: [...codes] },
        error_description: { type: 'string', description: 'What went wrong, for the developer (RFC 6749 §5.2)' },
      },
      required: ['error', 'error_description'],
    },
    example: { error: codes[0], error_description: example },
  },
});

const errorResponse = (description: string, codes: readonly string[], example: string, headers: Record<string, unknown> = {}): ResponseObject => ({
  description,
  headers: { ...DOCUMENTED_NO_STORE, ...headers },
  content: errorBody(codes, example),
});

/** The 400 refusals of an endpoint: RFC 6749's or RFC 7009's, and RFC 9449's when it checks DPoP proofs. */
function badRequest(declaration: TokenEndpointDeclaration): ResponseObject {
  if (declaration.kind !== 'token') return errorResponse('RFC 6749 §5.2 error', ['invalid_request', 'unsupported_token_type'], 'grant_type: field required');
  const codes = ['invalid_request', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'];
  // An older copy of core declares no `dpop`: it is then `undefined`, an endpoint without DPoP.
  const { dpop } = declaration;
  if (!dpop) return errorResponse('RFC 6749 §5.2 error', codes, 'grant_type: field required');
  codes.push('invalid_dpop_proof');
  if (dpop.nonces) codes.push('use_dpop_nonce');
  const description = dpop.nonces
    ? 'RFC 6749 §5.2 error, or RFC 9449 §5 / §8 `invalid_dpop_proof` / `use_dpop_nonce` (with `DPoP-Nonce`) for the DPoP proof'
    : 'RFC 6749 §5.2 error, or RFC 9449 §5 `invalid_dpop_proof` for the DPoP proof';
  return errorResponse(description, codes, 'grant_type: field required', dpop.nonces ? DOCUMENTED_DPOP_NONCE : {});
}

/** The refusals each kind of endpoint answers, by status. */
function errorResponses(declaration: TokenEndpointDeclaration): Record<string, ResponseObject> {
  return {
    '400': badRequest(declaration),
    '401': errorResponse('Client authentication failed (RFC 6749 §5.2 `invalid_client`)', ['invalid_client'], 'Client authentication failed', {
      'WWW-Authenticate': {
        description: 'Sent only when the client authenticated with HTTP Basic',
        required: false,
        schema: { type: 'string', const: 'Basic' },
      },
    }),
    '413': errorResponse('Request body too large', ['invalid_request'], 'Request body larger than 16384 bytes'),
    '415': errorResponse(
      'Unsupported Content-Type, a `Content-Encoding`, or a urlencoded form in a `charset` other than UTF-8 (RFC 6749 Appendix B)',
      ['invalid_request'],
      'Unsupported content-type text/plain',
    ),
    '500': errorResponse('A fault of the server', ['server_error'], 'The request could not be completed'),
    // A fault thrown as tRPC's SERVICE_UNAVAILABLE keeps its status (core's `tokenErrorResponse`):
    // RFC 7009 §2.2.1 gives a revocation endpoint's 503 a meaning, and a token endpoint whose store
    // is down answers it too. No `Retry-After` is listed: the library sends none (an application
    // that adds one in its `responseMeta` documents it itself).
    '503': errorResponse(
      'The server cannot answer for now (a `SERVICE_UNAVAILABLE` fault, RFC 7009 §2.2.1): the client may try again later',
      ['server_error'],
      'The request could not be completed',
    ),
  };
}

/** The endpoint's form as one object: `grant_type` an enum of the registered grants, every field of every grant. */
function formSchema(operation: Operation, declaration: TokenEndpointDeclaration): Record<string, unknown> | undefined {
  const body = operation.requestBody;
  if (body === undefined || '$ref' in body) return undefined;
  const schema = (body.content[JSON_MEDIA_TYPE] ?? body.content[URLENCODED])?.schema as Record<string, unknown> | undefined;
  if (schema === undefined || '$ref' in schema) return undefined;
  const required = declaration.kind === 'revocation' ? ['token'] : declaration.defaultGrantType === null ? ['grant_type'] : [];
  return required.length > 0 ? { ...schema, required } : schema;
}

/**
 * The `DPoP` request header of a token endpoint that checks proofs (RFC 9449 §4), required when
 * it refuses requests without one, beside the operation's other parameters.
 */
function documentDPoPHeader(operation: Operation, declaration: TokenEndpointDeclaration): void {
  const { dpop } = declaration;
  if (!dpop) return;
  const parameters = (operation.parameters ?? []).filter((parameter) => !('name' in parameter && parameter.in === 'header' && parameter.name.toLowerCase() === 'dpop'));
  const required = dpop.required === true;
  const when = required ? 'Required' : dpop.required === false ? 'Optional' : 'Optional or required, as the server is configured';
  parameters.push({
    name: 'DPoP',
    in: 'header',
    required,
    description: `${when}: a DPoP proof (RFC 9449 §4) for \`POST\` and this endpoint's URL, to get DPoP-bound tokens (\`token_type: DPoP\`)`,
    schema: { type: 'string' },
  });
  operation.parameters = parameters;
}

/**
 * Documents a token or revocation endpoint (core's `tokenEndpoint` / `revocationEndpoint`) as it
 * answers: its body as `application/x-www-form-urlencoded` (unless the meta lists
 * `contentTypes`), with `grant_type` an enum of the registered grants and every grant's fields;
 * 200 with the RFC 6749 §5.1 body and `Cache-Control: no-store`; 400 / 401 / 413 / 415 / 500 / 503
 * with RFC 6749 §5.2's `{ error, error_description }`, 401 with the optional `WWW-Authenticate: Basic`.
 * A token endpoint that checks DPoP proofs also lists the `DPoP` request header and its 400's
 * `invalid_dpop_proof`, and when it may ask for a nonce, `use_dpop_nonce` with the optional
 * `DPoP-Nonce` header (RFC 9449 §5, §8). Responses the meta lists itself (`errorResponses`) are
 * kept. See `docs/contract.md#openapi`.
 */
export function documentTokenEndpoint(operation: Operation, procedure: unknown, contentTypes: readonly string[] | undefined): boolean {
  const declaration = getTokenEndpoint(procedure);
  if (declaration === undefined) return false;
  const schema = formSchema(operation, declaration);
  const body = operation.requestBody;
  if (schema !== undefined && body !== undefined && !('$ref' in body)) {
    const media = { schema };
    body.content = contentTypes === undefined ? { [URLENCODED]: media } : Object.fromEntries(Object.keys(body.content).map((type) => [type, media]));
  }
  documentDPoPHeader(operation, declaration);
  const responses = operation.responses ?? {};
  const success = responses['200'] as ResponseObject | undefined;
  operation.responses = {
    ...(success === undefined ? {} : { '200': { ...success, headers: { ...DOCUMENTED_NO_STORE, ...success.headers } } }),
    ...errorResponses(declaration),
  };
  return true;
}

const unique = <$T>(values: readonly $T[]) => [...new Set(values)];

/**
 * Adds the refusals of the endpoint's own chain (a reader the application put on the procedure it
 * built the endpoint on) to its RFC 6749 responses: the adapters answer them in §5.2's shape
 * (`error` the refusal's RFC 6750 code, `invalid_request` for one without), with the reader's
 * `WWW-Authenticate` challenge. A status the endpoint answers too (401) lists both its refusals.
 */
export function documentChainRefusals(operation: Operation, challenges: readonly SecurityChallenge[]): void {
  const responses = (operation.responses ?? {}) as Record<string, ResponseObject>;
  for (const status of unique(challenges.map((refusal) => String(refusal.status)))) {
    const here = challenges.filter((refusal) => String(refusal.status) === status);
    const codes = unique(here.map((refusal) => /error="([^"]+)"/.exec(refusal.challenge ?? '')?.[1] ?? 'invalid_request'));
    const sent = unique(here.flatMap((refusal) => (refusal.challenge === undefined ? [] : [refusal.challenge])));
    const descriptions = unique(here.map((refusal) => refusal.description));
    const known = responses[status];
    const media = (known?.content?.[JSON_MEDIA_TYPE] as { schema?: { properties?: { error?: { enum?: string[] } } } } | undefined)?.schema?.properties?.error;
    if (known === undefined || media === undefined) {
      const challenge = { description: 'The authentication challenge (RFC 6750 §3).', required: here.every((refusal) => refusal.challenge !== undefined), schema: { type: 'string', examples: sent } };
      responses[status] = errorResponse(descriptions.join('; '), codes, descriptions[0]!, {
        ...(sent.length === 0 ? {} : { 'WWW-Authenticate': challenge }),
        ...(here.some((refusal) => refusal.nonce === true) ? DOCUMENTED_DPOP_NONCE : {}),
      });
      continue;
    }
    known.description = unique([known.description, ...descriptions]).join('; ');
    media.enum = unique([...(media.enum ?? []), ...codes]);
    const headers = (known.headers ??= {});
    const header = headers['WWW-Authenticate'] as { schema?: { const?: string; examples?: string[] } } | undefined;
    const before = header?.schema?.const !== undefined ? [header.schema.const] : (header?.schema?.examples ?? []);
    if (sent.length > 0) {
      headers['WWW-Authenticate'] = {
        description: 'The challenge of the refusal: `Basic` when a client that authenticated with HTTP Basic is refused, the reader\'s otherwise',
        required: false,
        schema: { type: 'string', examples: unique([...before, ...sent]) },
      };
    }
    if (here.some((refusal) => refusal.nonce === true)) Object.assign(headers, DOCUMENTED_DPOP_NONCE);
  }
  operation.responses = responses;
}
