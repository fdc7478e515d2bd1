/**
 * The refusal, at start, of metadata that advertises a resource its verifiers do not validate.
 * @module
 */
import { canonicalResource } from '@trpc-oauth2/core/protocol';

/**
 * Thrown by `protectedResourceMetadata` when a reader's verifier accepts an audience that is not
 * exactly the advertised `resource` (canonical), or does not say which it accepts (`audience` is
 * then `null`): clients would be told to get tokens for one resource while the server may accept
 * tokens of another, or, for another spelling of the same URL, refuse every one of them (verifiers
 * compare `aud` as a plain string). Stable code `ERR_RESOURCE_AUDIENCE_MISMATCH`.
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
  readonly code = 'ERR_RESOURCE_AUDIENCE_MISMATCH' as const;

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
    super(mismatchMessage(resource, audience, procedure, schemeName));
  }
}

function mismatchMessage(resource: string, audience: string | null, procedure: string, schemeName: string): string {
  const advertised = `The metadata advertises resource ${JSON.stringify(resource)}, but the verifier of reader ${JSON.stringify(schemeName)} (procedure ${JSON.stringify(procedure)})`;
  if (audience === null) {
    return (
      `${advertised} does not say which audience it accepts: give it an \`audience\` ` +
      `(@trpc-oauth2/jwt's verifiers have one), or pass unnamedAudience: 'trust' if it checks ${JSON.stringify(resource)} itself`
    );
  }
  if (sameResource(audience, resource)) {
    // Another spelling of the advertised URL: the verifier compares `aud` exactly (RFC 7519 §2),
    // so the tokens clients get for the advertised resource would all be refused.
    return (
      `${advertised} accepts tokens for audience ${JSON.stringify(audience)}, another spelling of it: verifiers compare \`aud\` exactly, ` +
      `so every token for ${JSON.stringify(resource)} would be refused. Configure the verifier with the advertised audience ${JSON.stringify(resource)}`
    );
  }
  return (
    `${advertised} accepts tokens for audience ${JSON.stringify(audience)}: ` +
    `give the verifier audience ${JSON.stringify(resource)}, or advertise the resource it validates`
  );
}

/** Whether `audience` is `resource` spelled otherwise (RFC 8707 canonical form): no error if it is no URL. */
function sameResource(audience: string, resource: string): boolean {
  try {
    return canonicalResource(audience, 'audience') === resource;
  } catch {
    return false;
  }
}
