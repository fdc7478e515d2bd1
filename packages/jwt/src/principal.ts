/**
 * The shape of a verifier, from `@trpc-oauth2/core`: a {@link TokenVerifier} turns a token into a
 * {@link Principal}, and is what a core reader takes as its `verify` option
 * (docs/contract.md#verified-readers). Re-exported so that verifiers can be typed from this package.
 * @module
 */
export type { Principal, TokenVerifier, VerifyOptions } from '@trpc-oauth2/core';
