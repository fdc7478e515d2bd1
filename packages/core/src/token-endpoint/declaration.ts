/**
 * What a token or revocation endpoint built by this package declares about itself, for the HTTP
 * layers: the adapters answer its errors in RFC 6749 §5.2's shape with `Cache-Control: no-store`
 * and limit its body; the OpenAPI document lists its grants' fields and the refusals it answers.
 * See docs/contract.md#token-responses.
 * @module
 */
import type { GrantField } from './grant-forms.js';

/**
 * The key under which an endpoint's input parser carries its {@link TokenEndpointDeclaration}. A
 * global symbol, so that two copies of this package still understand each other.
 */
export const TOKEN_ENDPOINT: unique symbol = Symbol.for('trpc-oauth2.token-endpoint') as never;

/** One grant a token endpoint serves: its `grant_type` and the fields of its form. */
export interface DeclaredGrant {
  readonly grantType: string;
  readonly fields: Readonly<Record<string, GrantField>>;
}

/**
 * What a token endpoint (`kind: 'token'`) or a revocation endpoint (`kind: 'revocation'`) declares.
 */
export interface TokenEndpointDeclaration {
  readonly kind: 'token' | 'revocation';
  /** The grants served, in the order they were registered (none for a revocation endpoint). */
  readonly grants: readonly DeclaredGrant[];
  /**
   * The wire fields the endpoint reads (every grant's, for a token endpoint): one sent more than
   * once is refused, RFC 6749 §3.2 (docs/contract.md#token-responses).
   */
  readonly fields: readonly string[];
  /** The grant a request without `grant_type` is taken for, or `null` when `grant_type` is required. */
  readonly defaultGrantType: string | null;
  /** The largest body the HTTP layers read for this endpoint, in bytes (`undefined`: the handler's own limit). */
  readonly maxBodySize: number | undefined;
  /**
   * Whether the endpoint checks DPoP proofs (RFC 9449 §5), and what that may answer; `null` when it
   * checks none (and for a revocation endpoint). Options given as a function of `ctx` are known
   * only per request, so they are declared as what they may do:
   * - `required`: whether a request without a proof is refused (`invalid_dpop_proof`); `null`
   *   when it depends on `ctx`;
   * - `nonces`: whether the endpoint may ask for a nonce (RFC 9449 §8: `use_dpop_nonce` with a
   *   `DPoP-Nonce` header); `false` only when its proof checker has no nonces, `true` when it
   *   depends on `ctx`;
   * - `algorithms`: the proof algorithms its checker accepts; `null` when it depends on `ctx`.
   */
  readonly dpop: { readonly required: boolean | null; readonly nonces: boolean; readonly algorithms: readonly string[] | null } | null;
}

/**
 * A `maxBodySize` option, an endpoint's or an HTTP handler's, checked where it is given: a whole
 * number of bytes, or `undefined` for the default. Any other number (`NaN` from a missing
 * environment variable, a negative or fractional one) would be compared with every body and
 * refuse none, or all, unseen (docs/contract.md#body-limits).
 *
 * @example
 * ```ts
 * checkedMaxBodySize(2_048); // 2048
 * ```
 */
export function checkedMaxBodySize(maxBodySize: unknown): number | undefined {
  if (maxBodySize === undefined || (Number.isSafeInteger(maxBodySize) && (maxBodySize as number) >= 0)) return maxBodySize as number | undefined;
  throw new TypeError(`maxBodySize must be a whole number of bytes, 0 or more (got ${String(maxBodySize)})`);
}

/**
 * The declaration of a built procedure that is a token or revocation endpoint of this package,
 * read from its input parser; `undefined` for any other procedure.
 *
 * @example
 * ```ts
 * getTokenEndpoint(router.token)?.grants.map((grant) => grant.grantType); // ['password', 'refresh_token']
 * ```
 */
export function getTokenEndpoint(procedure: unknown): TokenEndpointDeclaration | undefined {
  const def = (procedure as { _def?: { inputs?: readonly unknown[] } } | null | undefined)?._def;
  for (const input of def?.inputs ?? []) {
    const declaration = (input as { [TOKEN_ENDPOINT]?: TokenEndpointDeclaration } | null)?.[TOKEN_ENDPOINT];
    if (declaration !== undefined) return declaration;
  }
  return undefined;
}
