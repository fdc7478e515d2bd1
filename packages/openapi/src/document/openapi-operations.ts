/**
 * Lists the procedures trpc-to-openapi documents, chosen exactly as it chooses them, so the
 * security written here lands on the same operations.
 * @module
 */
import { forEachOpenApiProcedure, normalizePath, type GenerateOpenApiDocumentOptions, type OpenApiMeta, type OpenApiRouter } from 'trpc-to-openapi';

/**
 * A procedure trpc-to-openapi documents: where (`path` as in the document, lower-case `method`)
 * and what (the procedure and its `openapi` meta).
 */
export interface OpenApiOperation {
  path: string;
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  procedure: { _def: object };
  openapi: NonNullable<OpenApiMeta['openapi']>;
}

/**
 * The procedures of `router` that trpc-to-openapi puts in a document, chosen exactly as it
 * chooses them (`openapi` meta, not `enabled: false`, kept by `filter`).
 */
export function listOpenApiOperations<$Meta>(
  router: OpenApiRouter,
  filter?: GenerateOpenApiDocumentOptions<$Meta>['filter'],
): OpenApiOperation[] {
  const operations: OpenApiOperation[] = [];
  forEachOpenApiProcedure<$Meta>(router._def.procedures, ({ procedure, meta }) => {
    if (filter && !filter({ metadata: meta })) return;
    const { openapi } = meta;
    operations.push({
      path: normalizePath(openapi.path),
      method: openapi.method.toLowerCase() as OpenApiOperation['method'],
      procedure,
      openapi,
    });
  });
  return operations;
}
