/**
 * The refusal, at start, of metadata that advertises a resource its verifiers do not validate.
 * @module
 */

/**
 * Thrown by `protectedResourceMetadata` when a reader's verifier accepts an audience that is not
 * the advertised `resource` (after RFC 8707 canonicalization): clients would be told to get
 * tokens for one resource while the server accepts tokens of another. Stable code
 * `ERR_RESOURCE_AUDIENCE_MISMATCH`.
 *
 * @example
 * ```ts
 * try { protectedResourceMetadata(appRouter, options); } catch (error) {
 *   if (error instanceof ResourceAudienceMismatchError) console.error(error.procedure, error.audience);
 * }
 * ```
 */
export class ResourceAudienceMismatchError extends Error {
  override readonly name = 'ResourceAudienceMismatchError';
  readonly code = 'ERR_RESOURCE_AUDIENCE_MISMATCH';

  constructor(
    /** The advertised resource, canonical. */
    readonly resource: string,
    /** The audience the verifier accepts, as configured. */
    readonly audience: string,
    /** The procedure whose chain holds the reader. */
    readonly procedure: string,
    /** The reader's scheme name. */
    readonly schemeName: string,
  ) {
    super(
      `The metadata advertises resource ${JSON.stringify(resource)}, but the verifier of reader ${JSON.stringify(schemeName)} ` +
        `(procedure ${JSON.stringify(procedure)}) accepts tokens for audience ${JSON.stringify(audience)}: ` +
        `give the verifier audience ${JSON.stringify(resource)}, or advertise the resource it validates`,
    );
  }
}
