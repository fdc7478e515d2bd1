/**
 * What a procedure's security answers when it refuses, read from the errors themselves, so an
 * overridden error factory is documented as it is.
 * @module
 */
import { getOAuth2Error } from '@trpc-oauth2/core';
import { insufficientScopeError } from '@trpc-oauth2/core/errors';
import type { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import type { ProcedureSecurity } from '@trpc-oauth2/core/protocol';

/**
 * One refusal the security of a procedure can answer with: its HTTP status, its message and the
 * `WWW-Authenticate` challenge sent with it, if any.
 */
export interface SecurityChallenge {
  status: number;
  description: string;
  challenge?: string;
  /** Sent with a `DPoP-Nonce` header (RFC 9449 §8: `use_dpop_nonce`). */
  nonce?: true;
}

const headerOf = (headers: Readonly<Record<string, string>>, wanted: string) => Object.entries(headers).find(([name]) => name.toLowerCase() === wanted)?.[1];

const challengeOf = (error: TRPCError): SecurityChallenge => {
  const cause = getOAuth2Error(error);
  const headers = cause?.headers ?? {};
  const challenge = headerOf(headers, 'www-authenticate');
  const status = cause?.status ?? getHTTPStatusCodeFromError(error);
  return {
    status,
    description: error.message,
    ...(challenge === undefined ? {} : { challenge }),
    ...(headerOf(headers, 'dpop-nonce') === undefined ? {} : { nonce: true as const }),
  };
};

/**
 * What a procedure's security middlewares answer when they refuse a request, read from the
 * errors themselves (so an overridden factory is documented as it is, and a reader that accepts
 * DPoP in each scheme it answers in): each reader that refuses unauthenticated requests (every
 * verified one once the chain requires scopes), each verified reader's `invalid_token` (401, a
 * token its verifier refuses, even where the reader is optional), each DPoP reader's refusals of
 * a proof (401 `invalid_dpop_proof`, and `use_dpop_nonce` when it asks for nonces), each step-up's
 * `insufficient_user_authentication` (401), and `insufficient_scope` (403) when the chain
 * requires scopes, naming them in the order they accumulate: each verified reader's own, or the
 * default where no verified reader checks them (`manualScopeCheck`).
 */
export function securityChallenges(security: ProcedureSecurity): SecurityChallenge[] {
  const refusals = [
    ...security.notAuthenticatedErrors.map((refusal) => refusal()),
    ...security.refusals.flatMap((reader) => [...reader.invalidToken(), ...(reader.dpopProof?.() ?? [])]),
  ];
  const challenges = [...refusals, ...security.stepUpErrors.map((refusal) => refusal())].map(challengeOf);
  const scopes = [...new Set(security.declarations.flatMap((declaration) => declaration.scopes))];
  if (scopes.length === 0) return challenges;
  const lacking = security.refusals.flatMap((reader) => reader.insufficientScope(scopes));
  challenges.push(...(lacking.length === 0 ? [insufficientScopeError(scopes)] : lacking).map(challengeOf));
  return challenges;
}
