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
import { noContextError, type AuthenticationRequirement, type ChallengeOptions } from '../errors.js';
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
   * another one in its ctx (a middleware changed the request, or a nested call brought its own)
   * consults the reader again (docs/contract.md#verified-readers).
   */
  readonly authorization: string | undefined;
  /** The path of the procedure called when the reader was consulted (tRPC's `opts.path`). */
  readonly path: string | undefined;
  /** What the reader puts on ctx (`null`: no credential, with `autoError: false`). */
  readonly value: string | null;
  /** The verified principal, or `null` when there was no credential. */
  readonly principal: Principal | null;
  /**
   * The scopes the principal grants, as the steps check them: taken when it was verified, in a
   * copy no one else holds, so a middleware that changes `ctx.principal.scopes` in place changes
   * what the resolver reads, never what a step checks (`undefined` without a principal).
   */
  readonly granted: GrantedScopes | undefined;
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
  /** How a stream the call returns (a subscription's, or a streamed query's or mutation's) ends with this principal (a verified reader's). */
  readonly renewal?: PrincipalRenewal;
  /**
   * A consultation that found no credential where the reader found one before in this call (a
   * middleware took it away): once anything is required it refuses, whatever another reader's
   * principal is known (see `checkState`).
   */
  readonly withdrawn?: true;
}

/**
 * A reader's scope hierarchy: the grant with every scope it implies. It is given the principal
 * too, so that `anyOf` applies the hierarchy of the reader whose verifier granted it.
 */
export type ScopeExpansion = (granted: GrantedScopes, principal: Principal) => GrantedScopes;

/**
 * A step-up requirement of the chain (`requireAuthentication`), as the state checks it: it throws
 * its refusal unless the principal of `consultation` meets it (`null`: none, which never does).
 */
export type AuthenticationCheck = ((consultation: Consultation) => void) & {
  /**
   * When the principal of `consultation`, meeting the requirement now, stops meeting it by
   * itself, in seconds since the epoch (a `maxAge` passing: the first second its `authTime` is
   * more than `maxAge` ago); `undefined` when never. A stream ends then (docs/contract.md#subscriptions).
   */
  readonly metUntil?: ((consultation: Consultation) => number | undefined) | undefined;
};

/**
 * The state itself: the scopes accumulated, the step-up requirements met so far, and every
 * verified reader consulted, in order, in the call `call` (tRPC's `getRawInput` of that call: one
 * per call, however many steps); `earlier`, the consultations of the state this call's came from
 * (another call's, its ctx spread into this one, or this call's own before a middleware handed on
 * another `getRawInput`).
 */
export interface SecurityState {
  readonly scopes: SecurityScopes;
  readonly authentication: readonly AuthenticationCheck[];
  readonly consulted: readonly Consultation[];
  readonly earlier: readonly Consultation[];
  readonly call: unknown;
}

const NONE: readonly never[] = Object.freeze([]);

/** What a step knows of the call it runs in. */
interface StepCall {
  readonly ctx: object;
  readonly getRawInput?: unknown;
  readonly path?: string | undefined;
}

/**
 * The state of the call of `opts` so far (empty before its first security step). A state made
 * for another `getRawInput` came from a ctx spread from another call's (`createCaller({ ...ctx,
 * headers })` in a resolver), or from this call's own steps before a middleware handed on another
 * `getRawInput` (tRPC gives the steps after it what a new call's would be). Either way its
 * requirements stay required. Its consultations count here when made for this same procedure:
 * nothing tells this call's own, before the middleware, from those of an outer call of a
 * procedure at the same path, so those count too (the safe side: a principal counting refuses
 * more, never less), whatever credential they were made with; a credential changed since is
 * consulted again beside them. Another procedure's principals never count here
 * (docs/contract.md#verified-readers).
 */
export function stateOf(opts: StepCall): SecurityState {
  const ctx = opts.ctx as { [SECURITY_STATE]?: SecurityState } | null | undefined;
  if (ctx == null) throw noContextError();
  const state = ctx[SECURITY_STATE];
  if (state !== undefined && state.call === opts.getRawInput) return state;
  if (state === undefined) return { scopes: NO_SCOPES, authentication: NONE, consulted: NONE, earlier: NONE, call: opts.getRawInput };
  const earlier = state.consulted.length > 0 ? state.consulted : state.earlier;
  const carried = earlier.filter((consultation) => consultation.path === opts.path);
  return { scopes: state.scopes, authentication: state.authentication, consulted: carried.length > 0 ? carried : NONE, earlier, call: opts.getRawInput };
}

/**
 * The scopes `principal` grants, as a consultation keeps them (see {@link Consultation.granted}):
 * a frozen array as it is, any other grant copied.
 */
export function grantOf(principal: Principal): GrantedScopes {
  const { scopes } = principal;
  if (Array.isArray(scopes)) return Object.isFrozen(scopes) ? scopes : Object.freeze(scopes.slice());
  return new Set(scopes);
}

/**
 * The latest consultation of `reader` in this request, if it was consulted already: a reader
 * consulted again with another credential (see `securityStep`) keeps its earlier consultations
 * in the state, and the steps after it compare the credential with the latest.
 */
export function consultationOf(state: SecurityState, reader: object): Consultation | undefined {
  for (let i = state.consulted.length - 1; i >= 0; i--) if (state.consulted[i]!.reader === reader) return state.consulted[i];
  return undefined;
}

/**
 * Checks a state: when scopes are required, every verified principal must grant all of them
 * (403 `insufficient_scope` naming them all), and meet every step-up requirement; and when no
 * principal is known although a verified reader was consulted (it found no credential), the
 * request is not authenticated (401 for the bearer readers, or the step-up's refusal when only
 * that is required): authentication stops being optional once anything is required.
 */
export function checkState(state: SecurityState): void {
  const required = state.scopes.scopes;
  const { authentication } = state;
  if ((required.length === 0 && authentication.length === 0) || state.consulted.length === 0) return;
  let absent: Consultation | undefined;
  let lastAbsent: Consultation | undefined;
  let known = false;
  for (const consultation of state.consulted) {
    if (consultation.principal === null) {
      if (consultation.withdrawn === true) {
        if (required.length > 0) throw consultation.makeNotAuthenticatedError();
        for (const check of authentication) check(consultation);
      }
      absent ??= consultation;
      lastAbsent = consultation;
      continue;
    }
    known = true;
    if (required.length > 0) {
      const own = consultation.granted!;
      const granted = consultation.expand === undefined ? own : consultation.expand(own, consultation.principal);
      if (!grantsAll(granted, required)) throw consultation.makeInsufficientScopeError(required);
    }
    for (const check of authentication) check(consultation);
  }
  if (known || absent === undefined) return;
  if (required.length > 0) throw absent.makeNotAuthenticatedError();
  for (const check of authentication) check(lastAbsent!);
}

/**
 * Checks the step-up requirements of `state` against `consulted` alone: every verified principal
 * must meet each, and without one the last consulted reader's refusal is given.
 */
export function checkAuthentication(state: SecurityState, consulted: readonly Consultation[]): void {
  checkState({ ...state, scopes: NO_SCOPES, consulted });
}
