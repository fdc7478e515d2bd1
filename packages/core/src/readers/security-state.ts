/**
 * The security state of one request: what the chain's security steps have required and verified
 * so far. It rides on ctx under a private symbol, so a middleware of the application that writes
 * `ctx.securityScopes`, `ctx.principal` or `ctx.token` changes what the resolver reads, never what
 * the next security step checks. Every step that changes the state checks it again, so whichever
 * comes last in the chain — the principal becoming known or the last scope being required — is
 * checked whatever the order. See docs/contract.md#verified-readers.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import type { AuthenticationRequirement, ChallengeOptions } from '../errors.js';
import type { Principal } from './principal.js';
import type { PrincipalRenewal } from '../subscription-lifetime.js';
import { NO_SCOPES, grantsAll, type GrantedScopes, type SecurityScopes } from '../security-scopes.js';

/** The ctx key of the state: not exported from the package, and not a string a middleware writes. */
export const SECURITY_STATE: unique symbol = Symbol('trpc-oauth2.security-state') as never;

/** What one verified reader found in this request. */
export interface Consultation {
  /** The reader (its identity: a reader is consulted once per request, however often it appears). */
  readonly reader: object;
  /**
   * The `Authorization` value (or connection param) it was consulted with: a step that finds
   * another one in its ctx is in another call, made with a ctx spread from this one's, and
   * consults the reader again (docs/contract.md#verified-readers).
   */
  readonly authorization: string | undefined;
  /** What the reader puts on ctx (`null`: no credential, with `autoError: false`). */
  readonly value: string | null;
  /** The verified principal, or `null` when there was no credential. */
  readonly principal: Principal | null;
  /** The reader's not-authenticated error, for when scopes turn out to be required. */
  readonly makeNotAuthenticatedError: () => TRPCError;
  /** The reader's insufficient-scope error, given every scope required. */
  readonly makeInsufficientScopeError: (scopes: readonly string[]) => TRPCError;
  /**
   * The step-up refusal in the scheme the credential came in, when that is not Bearer's (a token
   * sent with DPoP, or none to a reader that takes DPoP only); `undefined`: Bearer's.
   */
  readonly makeInsufficientUserAuthenticationError?: ((requirement: AuthenticationRequirement, options: ChallengeOptions & { description?: string }) => TRPCError) | undefined;
  /** The reader's scope hierarchy: a grant with the scopes it implies (`undefined`: none). */
  readonly expand: ScopeExpansion | undefined;
  /** How a subscription's stream ends with this principal (a verified reader's). */
  readonly renewal?: PrincipalRenewal;
}

/**
 * A reader's scope hierarchy: the grant with every scope it implies. It is given the principal
 * too, so that `anyOf` applies the hierarchy of the reader whose verifier granted it.
 */
export type ScopeExpansion = (granted: GrantedScopes, principal: Principal) => GrantedScopes;

/** The state itself: the scopes accumulated, and every verified reader consulted, in order. */
export interface SecurityState {
  readonly scopes: SecurityScopes;
  readonly consulted: readonly Consultation[];
}

const EMPTY: SecurityState = Object.freeze({ scopes: NO_SCOPES, consulted: Object.freeze([]) });

/** The state of a request so far (empty before the first security step). */
export function stateOf(ctx: object): SecurityState {
  return (ctx as { [SECURITY_STATE]?: SecurityState })[SECURITY_STATE] ?? EMPTY;
}

/** The consultation of `reader` in this request, if it was consulted already. */
export function consultationOf(state: SecurityState, reader: object): Consultation | undefined {
  for (const consultation of state.consulted) if (consultation.reader === reader) return consultation;
  return undefined;
}

/**
 * Checks a state: when scopes are required, every verified principal must grant all of them
 * (403 `insufficient_scope` naming them all); and when no principal is known although a verified
 * reader was consulted (it found no credential), the request is not authenticated (401 for the
 * bearer readers): authentication stops being optional once scopes are required.
 */
export function checkState(state: SecurityState): void {
  const required = state.scopes.scopes;
  if (required.length === 0 || state.consulted.length === 0) return;
  let absent: Consultation | undefined;
  let known = false;
  for (const consultation of state.consulted) {
    if (consultation.principal === null) {
      absent ??= consultation;
    } else {
      known = true;
      const granted = consultation.expand === undefined ? consultation.principal.scopes : consultation.expand(consultation.principal.scopes, consultation.principal);
      if (!grantsAll(granted, required)) throw consultation.makeInsufficientScopeError(required);
    }
  }
  if (!known && absent !== undefined) throw absent.makeNotAuthenticatedError();
}
