/**
 * Documents a token or revocation endpoint: its grants' form body, its RFC 6749 §5.1 success and
 * §5.2 refusals, and the no-store headers of every answer.
 * @module
 */
import { getTokenEndpoint, type TokenEndpointDeclaration } from '@trpc-oauth2/core/protocol';
import { TOKEN_RESPONSE_HEADERS } from '@trpc-oauth2/core/token-endpoint';
import { JSON_MEDIA_TYPE, URLENCODED } from '../body/media-type.js';
import type { Operation, ResponseObject } from './document-types.js';

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

/** The refusals each kind of endpoint answers, by status. */
function errorResponses(declaration: TokenEndpointDeclaration): Record<string, ResponseObject> {
  const badRequest =
    declaration.kind === 'token'
      ? ['invalid_request', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope']
      : ['invalid_request', 'unsupported_token_type'];
  return {
    '400': errorResponse('RFC 6749 §5.2 error', badRequest, 'grant_type: field required'),
    '401': errorResponse('Client authentication failed (RFC 6749 §5.2 `invalid_client`)', ['invalid_client'], 'Client authentication failed', {
      'WWW-Authenticate': {
        description: 'Sent only when the client authenticated with HTTP Basic',
        required: false,
        schema: { type: 'string', const: 'Basic' },
      },
    }),
    '413': errorResponse('Request body too large', ['invalid_request'], 'Request body larger than 16384 bytes'),
    '415': errorResponse('Unsupported Content-Type', ['invalid_request'], 'Unsupported content-type "text/plain'),
    '500': errorResponse('A fault of the server', ['server_error'], 'The request could not be completed'),
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
 * Documents a token or revocation endpoint (core's `tokenEndpoint` / `revocationEndpoint`) as it
 * answers: its body as `application/x-www-form-urlencoded` (unless the meta lists
 * `contentTypes`), with `grant_type` an enum of the registered grants and every grant's fields;
 * 200 with the RFC 6749 §5.1 body and `Cache-Control: no-store`; 400 / 401 / 413 / 415 / 500 with
 * RFC 6749 §5.2's `{ error, error_description }`, 401 with the optional `WWW-Authenticate: Basic`.
 * Responses the meta lists itself (`errorResponses`) are kept. See `docs/contract.md#openapi`.
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
  const responses = operation.responses ?? {};
  const success = responses['200'] as ResponseObject | undefined;
  operation.responses = {
    ...(success === undefined ? {} : { '200': { ...success, headers: { ...DOCUMENTED_NO_STORE, ...success.headers } } }),
    ...errorResponses(declaration),
  };
  return true;
}
