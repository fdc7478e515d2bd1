/**
 * The challenge table of docs/contract.md#challenges: every `WWW-Authenticate` a resource server
 * answers with, from the factory that builds it, with and without `resource_metadata`.
 */
import type { TRPCError } from '@trpc/server';
import {
  bearerNotAuthenticatedError,
  insufficientScopeError,
  insufficientUserAuthenticationError,
  invalidTokenError,
  type ChallengeOptions,
} from '../../src/errors-entry.js';

export const METADATA_URL = 'https://api.example/.well-known/oauth-protected-resource/mcp';

export interface ChallengeCase {
  name: string;
  make: (options?: ChallengeOptions) => TRPCError;
  status: 401 | 403;
  code: string;
  /** The challenge without `resource_metadata`; with it, `, resource_metadata="…"` follows (or ` resource_metadata="…"` after a bare `Bearer`). */
  challenge: string;
}

export const CHALLENGE_TABLE: readonly ChallengeCase[] = [
  { name: 'no token', make: (o) => bearerNotAuthenticatedError(o), status: 401, code: 'ERR_NOT_AUTHENTICATED', challenge: 'Bearer' },
  { name: 'a bad token', make: (o) => invalidTokenError(undefined, o), status: 401, code: 'ERR_INVALID_TOKEN', challenge: 'Bearer error="invalid_token"' },
  {
    name: 'an expired token',
    make: (o) => invalidTokenError('The access token expired', o),
    status: 401,
    code: 'ERR_INVALID_TOKEN',
    challenge: 'Bearer error="invalid_token", error_description="The access token expired"',
  },
  {
    name: 'a missing scope',
    make: (o) => insufficientScopeError(['items:read', 'items:write'], o),
    status: 403,
    code: 'ERR_INSUFFICIENT_SCOPE',
    challenge: 'Bearer error="insufficient_scope", scope="items:read items:write"',
  },
  {
    name: 'a step-up to an acr',
    make: (o) => insufficientUserAuthenticationError({ acrValues: ['urn:example:mfa', 'urn:example:hwk'] }, o),
    status: 401,
    code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION',
    challenge:
      'Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", acr_values="urn:example:mfa urn:example:hwk"',
  },
  {
    name: 'a step-up to a recent login',
    make: (o) => insufficientUserAuthenticationError({ maxAge: 300 }, o),
    status: 401,
    code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION',
    challenge: 'Bearer error="insufficient_user_authentication", error_description="A different authentication level is required", max_age="300"',
  },
  {
    name: 'a step-up to both',
    make: (o) => insufficientUserAuthenticationError({ acrValues: ['urn:example:mfa'], maxAge: 0 }, { ...o, description: 'Log in again with a second factor' }),
    status: 401,
    code: 'ERR_INSUFFICIENT_USER_AUTHENTICATION',
    challenge: 'Bearer error="insufficient_user_authentication", error_description="Log in again with a second factor", acr_values="urn:example:mfa", max_age="0"',
  },
];

/** The challenge of `row` with `resource_metadata` pointing at `url`. */
export function withResourceMetadata(row: ChallengeCase, url: string): string {
  return row.challenge === 'Bearer' ? `Bearer resource_metadata="${url}"` : `${row.challenge}, resource_metadata="${url}"`;
}
