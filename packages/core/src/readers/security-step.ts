/**
 * The one security step every reader, `requireScopes`, `withScopes` and `anyOf` is made of. A
 * step has two switches: whether it puts the reader's credential (and principal) on ctx, and which
 * scopes it adds to the chain's. Whatever it does, it moves the request's security state forward
 * and checks it, so a chain's scopes hold whatever the order of its steps
 * (docs/contract.md#verified-readers).
 * @module
 */
import type { SecurityScopes, MiddlewareOptions, MiddlewareResult } from '../security-scopes.js';
import { STREAM_END, endingWithCredentials, streamEndOf, streamingWithCredentials } from '../subscription-lifetime.js';
import { SECURITY_STATE, checkState, consultationOf, stateOf, type Consultation, type SecurityState } from './security-state.js';

/** What a step needs of its reader. */
export interface ReaderCore {
  /** The ctx key of the credential (`token`, `authorization`). */
  readonly key: string;
  /** The reader's identity in a request's state: a reader is consulted once per request, however often it appears. */
  readonly identity: object;
  /** The credential, `null` when there is none and that is allowed; throws the not-authenticated error otherwise. */
  read(opts: MiddlewareOptions<object>): string | null;
  /** What a verified reader finds in this request: the credential read and verified (absent: the reader does not verify). */
  readonly consult?: ((opts: MiddlewareOptions<object>) => Consultation | Promise<Consultation>) | undefined;
  /** The `Authorization` value the reader reads in this call (a verified reader's, to match it against its consultation). */
  readonly authorizationOf?: ((opts: MiddlewareOptions<object>) => string | undefined) | undefined;
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
  const { key, identity, consult } = reader;
  // The ctx a step adds is written out as literals: they are cheaper per request than spreads.
  if (consult === undefined) {
    return (opts) => {
      const before = stateOf(opts);
      // Read first: a missing credential is a 401 even where a scope check would also fail.
      const value = putsCredential ? reader.read(opts) : undefined;
      let state = before;
      /** Whether the chain verified a reader before this step, whose stream ends with these scopes too. */
      let streams = false;
      if (accumulate !== undefined) {
        state = { scopes: accumulate(before.scopes), authentication: before.authentication, consulted: before.consulted, earlier: before.earlier, call: before.call };
        checkState(state);
        // Scopes added after the chain's verified readers: a subscription's stream (or a query's)
        // ends as soon as a recheck finds one of them no longer granted, as it does for the
        // readers' own scopes.
        streams = state.consulted.length > 0;
        if (streams && opts.type === 'subscription') return subscribe(opts, state, putsCredential ? { [key]: value } : {});
      }
      const next = opts.next({
        ctx: putsCredential
          ? { [key]: value, securityScopes: state.scopes, [SECURITY_STATE]: state }
          : { securityScopes: state.scopes, [SECURITY_STATE]: state },
      });
      return streams ? streamingWithCredentials(next, state, opts) : next;
    };
  }
  /** The step once the reader's consultation is known (`recorded`: the state holds it already). */
  const proceed = (opts: MiddlewareOptions<object>, before: SecurityState, consultation: Consultation, recorded: boolean) => {
    const state: SecurityState =
      recorded && accumulate === undefined
        ? before
        : {
            scopes: accumulate === undefined ? before.scopes : accumulate(before.scopes),
            authentication: before.authentication,
            consulted: recorded ? before.consulted : before.consulted.length === 0 ? [consultation] : [...before.consulted, consultation],
            earlier: before.earlier,
            call: before.call,
          };
    checkState(state);
    const puts = putsCredential || (!recorded && holdsEarlierPrincipal(opts.ctx, before, identity));
    if (opts.type === 'subscription') return subscribe(opts, state, puts ? { [key]: consultation.value, principal: consultation.principal } : {});
    // A query or mutation whose resolver returns a stream (tRPC streams it to `httpBatchStreamLink`)
    // gets the same lifetime, once it returned: one `then` on every result, nothing more on the others.
    return streamingWithCredentials(
      opts.next({
        ctx: puts
          ? { [key]: consultation.value, principal: consultation.principal, securityScopes: state.scopes, [SECURITY_STATE]: state }
          : { securityScopes: state.scopes, [SECURITY_STATE]: state },
      }),
      state,
      opts,
    );
  };
  const { authorizationOf } = reader;
  return (opts) => {
    const state = stateOf(opts);
    const recorded = consultationOf(state, identity);
    if (recorded !== undefined && authorizationOf?.(opts) === recorded.authorization) return proceed(opts, state, recorded, true);
    // Not consulted yet, or consulted with another credential than the one this call's ctx now
    // carries (a middleware of the application changed the request between two steps): consult
    // again, keeping what is required so far, which the new principal must meet too. The principal
    // consulted before still counts, and every principal the chain verified must grant every scope
    // it accumulates (docs/contract.md#verified-readers). (A nested call's state counts none of the
    // outer call's consultations.)
    const found = consult(opts);
    // A known principal (a cache's `peek`) goes on at once, without a trip through the event loop.
    if (found instanceof Promise) return found.then((consultation) => proceed(opts, state, withdrawnFrom(state, recorded, consultation), false));
    return proceed(opts, state, withdrawnFrom(state, recorded, found), false);
  };
}

/**
 * `consultation`, marked withdrawn when it found no credential where the reader had found a
 * principal before in this call (a middleware took the credential away): the call then refuses
 * once anything is required, whatever another reader found (see `checkState`), as a call without
 * a credential does.
 */
function withdrawnFrom(state: SecurityState, recorded: Consultation | undefined, consultation: Consultation): Consultation {
  if (recorded === undefined || consultation.principal !== null) return consultation;
  return state.consulted.some((earlier) => earlier.reader === recorded.reader && earlier.principal !== null) ? { ...consultation, withdrawn: true } : consultation;
}

/**
 * Whether `ctx.principal` is one this reader put there earlier, in this call or in the call its
 * ctx was spread from, with another credential than the one now consulted: a step that consults
 * the reader again, a `requireScopes` step included, then puts what it found in its place, so the
 * resolver never reads a principal of this reader the chain did not check (a nested call's, after
 * a middleware handed on another `getRawInput`, or with a spread ctx). Only this reader's: the
 * principal on ctx keeps the type the chain gave it.
 */
function holdsEarlierPrincipal(ctx: object, state: SecurityState, reader: object): boolean {
  const onCtx = (ctx as { principal?: unknown }).principal;
  if (onCtx === undefined || onCtx === null) return false;
  for (const list of [state.consulted, state.earlier]) {
    for (const consultation of list) if (consultation.reader === reader && consultation.principal === onCtx) return true;
  }
  return false;
}

/**
 * `next` for a step that moved the request's security state on after the chain's verified readers
 * without consulting one (a step-up requirement): a stream the call returns, a subscription's or a
 * query's, ends with `state`, the requirement included, as the readers' own steps make it end.
 */
export function nextEndingWith(opts: MiddlewareOptions<object>, state: SecurityState): Promise<MiddlewareResult<object>> {
  if (opts.type === 'subscription') return subscribe(opts, state, {});
  return streamingWithCredentials(opts.next({ ctx: { [SECURITY_STATE]: state } }), state, opts);
}

/**
 * A subscription through a step: its stream is made to end with the credentials of `state`
 * (every principal the chain verified, and the scopes it accumulated up to this step), and its
 * resolver learns the end from `ctx.streamSignal`; only subscriptions carry it. `own` is what
 * the step puts on ctx besides (docs/contract.md#subscriptions).
 */
function subscribe(opts: MiddlewareOptions<object>, state: SecurityState, own: object): Promise<MiddlewareResult<object>> {
  const stream = streamEndOf(opts);
  const ctx = Object.assign(own, { securityScopes: state.scopes, [SECURITY_STATE]: state, streamSignal: stream.signal, [STREAM_END]: stream });
  return endingWithCredentials(opts.next({ ctx }), state, stream);
}
