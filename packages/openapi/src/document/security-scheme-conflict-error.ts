/**
 * `SecuritySchemeConflictError`: two schemes under one name would silently replace each other in
 * the document, so generating it fails instead.
 * @module
 */
/**
 * Thrown while generating a document when two different schemes share one name: one would
 * silently replace the other in `components.securitySchemes`. Code `ERR_SECURITY_SCHEME_CONFLICT`.
 *
 * @example
 * ```ts
 * try {
 *   generateOAuth2OpenApiDocument(appRouter, options);
 * } catch (error) {
 *   if (error instanceof SecuritySchemeConflictError) console.error(error.schemeName);
 * }
 * ```
 */
export class SecuritySchemeConflictError extends Error {
  override readonly name = 'SecuritySchemeConflictError';
  readonly code = 'ERR_SECURITY_SCHEME_CONFLICT' as const;

  constructor(
    readonly schemeName: string,
    readonly schemes: readonly [first: unknown, second: unknown],
  ) {
    super(
      `Two different security schemes are named "${schemeName}": ${JSON.stringify(schemes[0])} and ${JSON.stringify(schemes[1])}. ` +
        'Give one of the readers its own schemeName.',
    );
  }
}
