/**
 * Step-up authentication (RFC 9470): a procedure that requires how, or how recently, the user
 * authenticated, checked on the verified principal. See docs/contract.md#step-up-authentication.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { insufficientUserAuthenticationError, type AuthenticationRequirement, type ChallengeOptions } from './errors.js';
import type { MiddlewareOptions, MiddlewareResult } from './security-scopes.js';
import { STEP_UP, type DeclaredRefusals, type StepUpDeclaration } from './security-declaration.js';
import { SECURITY_STATE, checkAuthentication, checkState, stateOf, type AuthenticationCheck, type Consultation, type SecurityState } from './readers/security-state.js';
import { nextEndingWith } from './readers/security-step.js';

/**
 * What a principal says about the user's authentication event (RFC 9068 §2.2.1: `acr`, `amr`,
 * `auth_time`), as `@trpc-oauth2/jwt`'s `JwtPrincipal` carries it.
 *
 * @example
 * ```ts
 * const principal: AuthenticatedPrincipal = { acr: 'urn:example:mfa', amr: ['pwd', 'otp'], authTime: 1_900_000_000 };
 * ```
 */
export interface AuthenticatedPrincipal {
  /** The authentication context class the user authenticated with. */
  readonly acr?: string | undefined;
  /** The authentication methods used. */
  readonly amr?: readonly string[] | undefined;
  /** When the user authenticated, seconds since the epoch. */
  readonly authTime?: number | undefined;
}

/**
 * The options of {@link assertAuthentication} and {@link requireAuthentication}: where the
 * challenge points (`resourceMetadata`), its description, and the error factory to build it with.
 *
 * @example
 * ```ts
 * const options: StepUpOptions = { resourceMetadata: 'https://api.example/.well-known/oauth-protected-resource' };
 * ```
 */
export interface StepUpOptions extends ChallengeOptions {
  /** The `error_description`. Default `A different authentication level is required`. */
  description?: string;
  /** Builds the refusal; default `insufficientUserAuthenticationError`. */
  makeError?: (requirement: AuthenticationRequirement, options: ChallengeOptions & { description?: string }) => TRPCError;
}

function checkedRequirement(requirement: AuthenticationRequirement): AuthenticationRequirement {
  // The factory refuses what a challenge cannot carry: checked once, when the procedure is defined.
  insufficientUserAuthenticationError(requirement);
  return Object.freeze({ ...requirement, ...(requirement.acrValues ? { acrValues: Object.freeze([...requirement.acrValues]) } : {}) });
}

/**
 * Refuses, with 401 `insufficient_user_authentication` naming `acr_values` / `max_age` (RFC 9470
 * §3), a principal whose `acr` is not one of `requirement.acrValues`, or whose `authTime` is
 * unknown, more than `requirement.maxAge` seconds ago, or more than `maxAge` seconds ahead of this
 * server's clock (no clock skew: a wrong `authTime`). Returns nothing when it meets both.
 *
 * @example
 * ```ts
 * assertAuthentication(ctx.principal, { acrValues: ['urn:example:mfa'], maxAge: 300 });
 * ```
 */
export function assertAuthentication(
  principal: AuthenticatedPrincipal,
  requirement: AuthenticationRequirement,
  options: StepUpOptions = {},
): void {
  const { acrValues, maxAge } = requirement;
  const acrMet = acrValues === undefined || (typeof principal.acr === 'string' && acrValues.includes(principal.acr));
  const authTime = principal.authTime;
  // Seconds elapsed since the login, within `maxAge` either way: a login dated more than `maxAge`
  // ahead of this server's clock is no clock skew but a wrong `authTime` (one in milliseconds, say),
  // which would otherwise meet the requirement for ever (docs/contract.md#step-up-authentication).
  const elapsed = typeof authTime === 'number' && Number.isFinite(authTime) ? Math.floor(Date.now() / 1000) - authTime : Number.NaN;
  const ageMet = maxAge === undefined || (elapsed <= maxAge && elapsed >= -maxAge);
  if (acrMet && ageMet) return;
  const { makeError = insufficientUserAuthenticationError, ...challenge } = options;
  throw makeError(requirement, challenge);
}

/**
 * The first second (since the epoch) at which `principal`'s authentication is more than `maxAge`
 * seconds old, as {@link assertAuthentication} counts it (whole seconds elapsed); `undefined`
 * without a finite `authTime` (such a principal never met the requirement).
 */
const ageMetUntil = (principal: AuthenticatedPrincipal | null, maxAge: number): number | undefined => {
  const authTime = principal?.authTime;
  // Whole seconds, as the check counts them (`Math.floor(now) - authTime > maxAge`): a fractional
  // `auth_time` (a JWT NumericDate may be one) stops meeting it at the next whole second.
  return typeof authTime === 'number' && Number.isFinite(authTime) ? Math.floor(authTime + maxAge) + 1 : undefined;
};

/**
 * A middleware that requires the verified principal (`ctx.principal`, put by a verified reader
 * earlier in the chain) to meet `requirement` (see {@link assertAuthentication}). Without a
 * principal (an optional reader let the request through) it refuses the same way: the client
 * must authenticate as required. A requirement no challenge can carry throws when it is made.
 * It declares itself (under `STEP_UP`), so the OpenAPI document lists its challenge and never
 * lists the operation as open to anonymous calls (docs/contract.md#step-up-authentication).
 *
 * @example
 * ```ts
 * const transfer = authed.use(requireAuthentication({ acrValues: ['urn:example:mfa'], maxAge: 300 })).mutation(…);
 * ```
 */
export function requireAuthentication(
  requirement: AuthenticationRequirement,
  options: StepUpOptions = {},
  // `object &`: every member of AuthenticatedPrincipal is optional, and TypeScript refuses a type
  // sharing none of them (the plain `Principal` a hand-written verifier returns) as a "weak type"
  // mismatch. Such a principal is one still: without `acr` or `auth_time` it never meets a
  // requirement, at run time. A member of another type (`acr: number`) is still refused here.
): <TCtx extends { principal: (object & AuthenticatedPrincipal) | null }>(opts: MiddlewareOptions<TCtx>) => Promise<MiddlewareResult<object>> {
  const checked = checkedRequirement(requirement);
  /**
   * The check of one principal the chain's readers verified, refused in the scheme the
   * credential came in without a factory of the application's: a token sent with DPoP is asked
   * to step up in DPoP's (RFC 9449 §7.1), not Bearer's. Without a principal it refuses.
   */
  const check: AuthenticationCheck = Object.assign(
    (consultation: Consultation) => {
      const scheme = options.makeError === undefined ? consultation.makeInsufficientUserAuthenticationError : undefined;
      assertAuthentication((consultation.principal ?? {}) as AuthenticatedPrincipal, checked, scheme === undefined ? options : { ...options, makeError: scheme });
    },
    { metUntil: checked.maxAge === undefined ? undefined : (consultation: Consultation) => ageMetUntil(consultation.principal as AuthenticatedPrincipal | null, checked.maxAge!) },
  );
  const middleware = async (opts: MiddlewareOptions<{ principal: AuthenticatedPrincipal | null }>) => {
    const before = stateOf(opts);
    // Kept in the request's security state, the requirement holds for every principal the
    // chain's readers verify, now or in a later step: never `ctx.principal`, which a middleware
    // of the application may rewrite (docs/contract.md#verified-readers).
    const state: SecurityState = { ...before, authentication: [...before.authentication, check] };
    if (before.consulted.length > 0) {
      checkState(state);
      // After the chain's verified readers: a stream the call returns ends as soon as a recheck
      // finds a renewed principal no longer meeting the requirement.
      return nextEndingWith(opts, state);
    }
    // No reader consulted in this call yet, but in the call its ctx was spread from (a nested
    // call's): those principals must meet it, not the `ctx.principal` that may have been rewritten since.
    if (before.earlier.length > 0) checkAuthentication(state, before.earlier);
    // Before any verified reader of this library (a chain without one): the principal the
    // application's own middlewares put on ctx.
    else assertAuthentication(opts.ctx.principal ?? {}, checked, options);
    return opts.next({ ctx: { [SECURITY_STATE]: state } });
  };
  const { makeError = insufficientUserAuthenticationError, ...challenge } = options;
  const declaration: StepUpDeclaration = Object.freeze({
    requirement: checked,
    makeError: () => makeError(checked, challenge),
    // Without a factory of the application's, the refusal is in the scheme its reader answers in (as the middleware picks it per request).
    ...(options.makeError === undefined ? { inScheme: (refusals: DeclaredRefusals) => refusals.insufficientUserAuthentication(checked, challenge) } : {}),
  });
  return Object.assign(middleware, { [STEP_UP]: declaration });
}
