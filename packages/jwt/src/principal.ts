/**
 * The shape of a verifier, from `@trpc-oauth2/core`: a {@link TokenVerifier} turns a token into a
 * {@link Principal}, and is what a core reader takes as its `verify` option
 * (docs/contract.md#verified-readers). Re-exported so that verifiers can be typed from this package.
 * @module
 */
import type { Principal, TokenVerifier } from '@trpc-oauth2/core';

export type { Principal, TokenVerifier, VerifyOptions } from '@trpc-oauth2/core';

/**
 * A verifier that accepts only tokens issued for the audiences it names, and says which: what a
 * server checks against the `resource` its metadata advertises (docs/contract.md#protected-resource-metadata).
 *
 * @typeParam TPrincipal - what it returns for an accepted token.
 * @example
 * ```ts
 * const verify: AudienceBoundVerifier<JwtPrincipal> = jwtVerifier({ jwksUrl, algorithms: ['RS256'], issuer, audience: 'https://api.example' });
 * verify.audience; // ['https://api.example']
 * ```
 */
export interface AudienceBoundVerifier<TPrincipal extends Principal> extends TokenVerifier<TPrincipal> {
  /** The `aud` values a token may name to be accepted, as configured. */
  readonly audience: readonly [string, ...string[]];
}
