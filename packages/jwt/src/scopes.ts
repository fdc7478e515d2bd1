/**
 * Reads the scopes and claims of a verified token the same way for every verifier: `scope` or
 * `scp` by core's RFC 6749 grammar, and the claims through the caller's schema.
 * @module
 */
import type { z } from 'zod/v4';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { isScopeToken, parseScope } from '@trpc-oauth2/core/protocol';
import { TOKEN_REFUSALS } from './errors.js';

/**
 * The scopes of a claim set: `scope` (a space-delimited string, RFC 8693 / RFC 9068 / RFC 7662)
 * wins; else `scp` (an array of scope tokens, or a space-delimited string); else none.
 * Anything else (a number, an array with a non-string, a doubled space) → `undefined`: malformed.
 */
export function scopesOfClaims(claims: Record<string, unknown>): readonly string[] | undefined {
  // Frozen: a principal is shared (by a cache, by every step of a call), and what it grants is
  // the verifier's to say, not a middleware's to change in place.
  const scopes = scopesOf(claims);
  return scopes === undefined ? undefined : Object.freeze(scopes);
}

function scopesOf(claims: Record<string, unknown>): string[] | undefined {
  if (claims.scope !== undefined) return parseScopeString(claims.scope);
  const scp = claims.scp;
  if (scp === undefined) return [];
  if (typeof scp === 'string') return parseScopeString(scp);
  if (!Array.isArray(scp)) return undefined;
  return scp.every(isScopeToken) ? [...scp] : undefined;
}

const parseScopeString = (scope: unknown): string[] | undefined => (typeof scope === 'string' ? parseScope(scope) : undefined);

/**
 * What a verifier puts on `principal.claims`: the claim set as `schema` parsed it, or the claim
 * set itself without a schema. A claim set the schema reports issues with is refused as a token
 * (401); what a schema throws is not caught: its code failed, not the token, and the reader
 * answers 500 (docs/contract.md#verified-readers).
 */
export async function claimsOf<TClaims>(claims: object, schema: z.ZodType<TClaims> | undefined): Promise<TClaims> {
  if (schema === undefined) return claims as TClaims;
  const parsed = await schema.safeParseAsync(claims);
  if (!parsed.success) throw invalidTokenError(TOKEN_REFUSALS.claims);
  return parsed.data;
}
