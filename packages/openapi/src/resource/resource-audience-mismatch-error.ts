/**
 * The refusal, at start, of metadata that advertises a resource its verifiers do not validate.
 * @module
 */

/**
 * Thrown by `protectedResourceMetadata` when a reader's verifier accepts an audience that is not
 * the advertised `resource` (after RFC 8707 canonicalization), or does not say which it accepts
 * (`audience` is then `null`): clients would be told to get tokens for one resource while the
 * server may accept tokens of another. Stable code
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
    /** The audience the verifier accepts, as configured; `null` when the verifier does not say. */
    readonly audience: string | null,
    /** The procedure whose chain holds the reader. */
    readonly procedure: string,
    /** The reader's scheme name. */
    readonly schemeName: string,
  ) {
    super(
      audience === null
        ? `The metadata advertises resource ${JSON.stringify(resource)}, but the verifier of reader ${JSON.stringify(schemeName)} ` +
            `(procedure ${JSON.stringify(procedure)}) does not say which audience it accepts: give it an \`audience\` ` +
            `(@trpc-oauth2/jwt's verifiers have one), or pass unnamedAudience: 'trust' if it checks ${JSON.stringify(resource)} itself`
        : `The metadata advertises resource ${JSON.stringify(resource)}, but the verifier of reader ${JSON.stringify(schemeName)} ` +
            `(procedure ${JSON.stringify(procedure)}) accepts tokens for audience ${JSON.stringify(audience)}: ` +
            `give the verifier audience ${JSON.stringify(resource)}, or advertise the resource it validates`,
    );
  }
}
