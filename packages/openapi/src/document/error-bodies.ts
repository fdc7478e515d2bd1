/**
 * Makes trpc-to-openapi's error bodies say what is really sent: the `data` the router's
 * `errorFormatter` adds, without bounds that only mislead Swagger UI.
 * @module
 */
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import type { OpenAPIObject } from 'trpc-to-openapi';

const isTrpcCode = (code: string): code is TRPC_ERROR_CODE_KEY => Object.hasOwn(TRPC_ERROR_CODES_BY_KEY, code);

/** zod's bounds of `z.number().int()`: they say nothing beyond `integer`, and Swagger UI shows the minimum as the example. */
const SAFE_BOUNDS = ['minimum', 'maximum'] as const;

/**
 * What trpc-to-openapi's error bodies really carry besides `message` and `code`: the
 * `errorFormatter`'s `data`, tRPC's (`code`, `httpStatus`, `path`) and, with the formatter the
 * library's readers and token endpoint are documented with, `oauth2` (`oauth2ErrorData(error)`).
 */
const dataProperty = () => ({
  type: 'object',
  description: "The error's data, as the router's errorFormatter shapes it",
  properties: {
    code: { type: 'string', description: 'The tRPC error code' },
    httpStatus: { type: 'integer', description: 'The HTTP status' },
    path: { type: 'string', description: 'The procedure' },
    oauth2: {
      description: "The OAuth 2.0 refusal (`oauth2ErrorData(error)` in the errorFormatter), `null` for another error",
      oneOf: [
        {
          type: 'object',
          properties: {
            code: { type: 'string', description: 'The stable code, e.g. `ERR_INSUFFICIENT_SCOPE`' },
            error: { type: ['string', 'null'], description: 'The RFC 6749 / RFC 6750 error, e.g. `insufficient_scope`' },
            error_description: { type: 'string' },
            challenge: { type: ['string', 'null'], description: 'The `WWW-Authenticate` value of the refusal, e.g. `Bearer error="insufficient_scope", scope="…"`' },
            dpopNonce: { type: ['string', 'null'], description: 'The `DPoP-Nonce` the next DPoP proof must carry (`use_dpop_nonce`)' },
          },
          required: ['code', 'error', 'error_description', 'challenge', 'dpopNonce'],
        },
        { type: 'null' },
      ],
    },
  },
  required: ['code', 'httpStatus'],
});

/**
 * Makes a generated document say what the handlers send:
 * - trpc-to-openapi's error bodies (`components.schemas['error.…']`) are `{ message, code, issues? }`
 *   plus the `data` of the router's error shape: `additionalProperties: false` would refuse every
 *   real body, so it is dropped, and `data` is documented (tRPC's `code`, `httpStatus`, `path`, and
 *   `oauth2`: the refusal's `code`, `error`, `error_description`, `challenge` and `dpopNonce`); the example is a body as
 *   the handlers send it (`message`, `code`, `data`), not one with `issues`;
 * - an integer's bounds that are only zod's safe-integer defaults (±9007199254740991) are dropped.
 */
export function truthfulBodies(document: OpenAPIObject): OpenAPIObject {
  for (const [name, schema] of Object.entries((document.components?.schemas ?? {}) as Record<string, Record<string, unknown>>)) {
    if (!name.startsWith('error.') || typeof schema !== 'object') continue;
    delete schema.additionalProperties;
    const properties = schema.properties as Record<string, unknown> | undefined;
    if (properties === undefined) continue;
    properties.data = dataProperty();
    // The example is a body as sent: `message`, `code` and `data`; `issues` only for input errors.
    const code = name.slice('error.'.length);
    const example = schema.example as { message?: unknown } | undefined;
    if (isTrpcCode(code)) {
      schema.example = {
        message: example?.message ?? code,
        code,
        data: { code, httpStatus: getHTTPStatusCodeFromError(new TRPCError({ code })), path: 'procedure.path', oauth2: null },
      };
    }
  }
  dropSafeIntegerBounds(document);
  return document;
}

function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropSafeIntegerBounds(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  if (record.type === 'integer' || record.type === 'number') {
    for (const bound of SAFE_BOUNDS) {
      if (Math.abs(record[bound] as number) === Number.MAX_SAFE_INTEGER) delete record[bound];
    }
  }
  for (const value of Object.values(record)) dropSafeIntegerBounds(value);
}
