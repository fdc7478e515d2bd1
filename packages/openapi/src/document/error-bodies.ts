/**
 * Makes trpc-to-openapi's error bodies say what is really sent: the `data` the router's
 * `errorFormatter` adds, without bounds that only mislead Swagger UI.
 * @module
 */
import type { OpenAPIObject } from 'trpc-to-openapi';

/** zod's bounds of `z.number().int()`: they say nothing beyond `integer`, and Swagger UI shows the minimum as the example. */
const SAFE_BOUNDS = ['minimum', 'maximum'] as const;

/** What trpc-to-openapi's error bodies really carry besides `message`, `code` and `issues`: the `errorFormatter`'s `data`. */
const DATA_PROPERTY = { type: 'object', description: "The error's data, as the router's errorFormatter shapes it" };

/**
 * Makes a generated document say what the handlers send:
 * - trpc-to-openapi's error bodies (`components.schemas['error.…']`) are `{ message, code, issues? }`
 *   plus the `data` of the router's error shape: `additionalProperties: false` would refuse every
 *   real body, so it is dropped and `data` listed;
 * - an integer's bounds that are only zod's safe-integer defaults (±9007199254740991) are dropped.
 */
export function truthfulBodies(document: OpenAPIObject): OpenAPIObject {
  for (const [name, schema] of Object.entries((document.components?.schemas ?? {}) as Record<string, Record<string, unknown>>)) {
    if (!name.startsWith('error.') || typeof schema !== 'object') continue;
    delete schema.additionalProperties;
    const properties = schema.properties as Record<string, unknown> | undefined;
    if (properties !== undefined) properties.data ??= DATA_PROPERTY;
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
