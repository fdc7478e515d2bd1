import type { TokenConfirmation } from '@trpc-oauth2/core';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { TOKEN_REFUSALS } from './errors.js';

/** A JWK SHA-256 thumbprint: 43 base64url characters (RFC 7638, RFC 9449 §6.1). */
const THUMBPRINT = /^[\w-]{43}$/;

/**
 * The `cnf` claim of a JWT or an introspection answer (RFC 7800 §3.1, RFC 9449 §6): absent, or an
 * object whose `jkt`, when present, is a thumbprint. A malformed one refuses the token: a binding
 * the reader could not read must never let the token pass as an unbound bearer token.
 */
export function confirmationOf(claims: Record<string, unknown>): TokenConfirmation | undefined {
  const { cnf } = claims;
  if (cnf === undefined) return undefined;
  if (typeof cnf !== 'object' || cnf === null || Array.isArray(cnf)) throw invalidTokenError(TOKEN_REFUSALS.confirmation);
  const { jkt } = cnf as { jkt?: unknown };
  if (jkt !== undefined && (typeof jkt !== 'string' || !THUMBPRINT.test(jkt))) throw invalidTokenError(TOKEN_REFUSALS.confirmation);
  return cnf as TokenConfirmation;
}
