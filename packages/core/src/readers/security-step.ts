/**
 * The one security step every reader, `requireScopes`, `withScopes` and `anyOf` is made of. A
 * step has two switches: whether it puts the reader's credential (and principal) on ctx, and which
 * scopes it adds to the chain's. Whatever it does, it moves the request's security state forward
 * and checks it, so a chain's scopes hold whatever the order of its steps
 * (docs/contract.md#verified-readers).
 * @module
 */
import type { SecurityScopes, MiddlewareOptions, MiddlewareResult } from '../security-scopes.js';
import { endingWithCredentials } from '../subscription-lifetime.js';
import { SECURITY_STATE, checkState, stateOf, whenConsulted, type Consulted, type SecurityState } from './security-state.js';

/** What a step needs of its reader. */
export interface ReaderCore {
  /** The ctx key of the credential (`token`, `authorization`). */
  readonly key: string;
  /** Whether the reader has a verifier (then it is consulted, not just read). */
  readonly verified: boolean;
  /** The credential, `null` when there is none and that is allowed; throws the not-authenticated error otherwise. */
  read(opts: MiddlewareOptions<object>): string | null;
  /** The state with the reader consulted: read and verified once per request (verified readers only). */
  consult(opts: MiddlewareOptions<object>, state: SecurityState): Consulted | Promise<Consulted>;
}

/** The two switches of a step. */
export interface StepPlan {
  /** Put the credential (and the principal) on ctx: the reader itself, and `withScopes`. */
  readonly putsCredential: boolean;
  /** Add scopes to the chain's: `requireScopes`, `withScopes`. */
  readonly accumulate?: (previous: SecurityScopes) => SecurityScopes;
}

/** A security step, as tRPC calls a middleware. */
export type SecurityStep = (opts: MiddlewareOptions<object>) => Promise<MiddlewareResult<object>>;

/**
 * A tRPC middleware for `plan` on `reader`. On the hot path it costs one state read, one check
 * and one `next`: a known principal (consulted earlier, or a cache's `peek`) never waits.
 */
export function securityStep(reader: ReaderCore, { putsCredential, accumulate }: StepPlan): SecurityStep {
  const { key } = reader;
  // The ctx a step adds is written out as literals: they are cheaper per request than spreads.
  if (!reader.verified) {
    return (opts) => {
      const before = stateOf(opts.ctx);
      // Read first: a missing credential is a 401 even where a scope check would also fail.
      const value = putsCredential ? reader.read(opts) : undefined;
      let state = before;
      if (accumulate !== undefined) {
        state = { scopes: accumulate(before.scopes), consulted: before.consulted };
        checkState(state);
      }
      return opts.next({
        ctx: putsCredential
          ? { [key]: value, securityScopes: state.scopes, [SECURITY_STATE]: state }
          : { securityScopes: state.scopes, [SECURITY_STATE]: state },
      });
    };
  }
  return (opts) => {
    const before = stateOf(opts.ctx);
    return whenConsulted(reader.consult(opts, before), ([consulted, consultation]) => {
      const state: SecurityState = accumulate === undefined ? consulted : { scopes: accumulate(before.scopes), consulted: consulted.consulted };
      checkState(state);
      const next = opts.next({
        ctx: putsCredential
          ? { [key]: consultation.value, principal: consultation.principal, securityScopes: state.scopes, [SECURITY_STATE]: state }
          : { securityScopes: state.scopes, [SECURITY_STATE]: state },
      });
      // A subscription's stream ends with the credentials that opened it (docs/contract.md#subscriptions).
      return opts.type === 'subscription' ? endingWithCredentials(next, state, opts.signal) : next;
    }) as Promise<MiddlewareResult<object>>;
  };
}
