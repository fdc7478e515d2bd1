/**
 * What a reader does with one request: read the credential from where the transport carries it
 * and, for a verified reader, verify it once. A bearer token is asked of the verifier's cache
 * (`peek`) first; a reader that accepts DPoP checks the proof on every request (once per request
 * object: a WebSocket connection's calls share its opening request's proof), before the token (a
 * cached principal included), the token's binding to the proof key after, and records the proof's
 * `jti` last. Either way the request's state records one {@link Consultation}. See
 * docs/contract.md#verified-readers and docs/contract.md#dpop.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { readCredential } from '../credential-source.js';
import type { HeadersLike } from '../headers.js';
import type { MiddlewareOptions } from '../security-scopes.js';
import type { ReaderDPoP } from '../dpop/reader-dpop.js';
import { UNCHECKED_BINDING, uncheckedConfirmation, type Principal } from './principal.js';
import type { ReaderSettings } from './reader-settings.js';
import { grantOf, type Consultation } from './security-state.js';
import type { ReaderCore } from './security-step.js';
import { verifierCall, type RenewalBinding } from './verifier-call.js';
import { verifyRequestOf } from './verify-request.js';

/** The reading and the consultation of a reader with `settings`, for its security steps. */
export function readerConsultation(settings: ReaderSettings): ReaderCore {
  const { definition, autoError, verify, dpop, credentialSource, origin, pathPrefix } = settings;
  const { makeNotAuthenticatedError, makeInvalidTokenError, makeInsufficientScopeError, expand } = settings;
  const { extract } = definition;
  const identity: object = Object.freeze({});
  const credentialIn = (authorization: string | undefined) => {
    const value = extract(authorization);
    if (value === null && autoError) throw makeNotAuthenticatedError();
    return value;
  };
  const authorizationOf = (opts: { readonly ctx: object }) => readCredential(opts.ctx, credentialSource).authorization;
  const read = (opts: MiddlewareOptions<object>) => credentialIn(authorizationOf(opts));
  if (verify === undefined) return { key: definition.key, identity, read };
  const calls = verifierCall(verify, settings);
  const peek = verify.peek;

  /**
   * What the reader found in this request, and how its principal is renewed while a stream the
   * call returns runs: a subscription's, or a query's or mutation's whose resolver streams, which
   * is known only once it returned. A renewed principal goes through `binding` with `jkt`, the
   * opening call's binding check: a verifier asked again (introspection, say) may answer another
   * `cnf` than it did, and a token the client could not have used that way when the stream opened
   * (bound to another key than its proof's, or bound at all when it came as `Bearer`) ends the stream.
   */
  const consultation = (
    opts: MiddlewareOptions<object>,
    authorization: string | undefined,
    headers: HeadersLike | null | undefined,
    value: string | null,
    principal: Principal | null,
    makeError?: (description: string) => TRPCError,
    insufficientScope: (scopes: readonly string[]) => TRPCError = makeInsufficientScopeError,
    insufficientUserAuthentication?: Consultation['makeInsufficientUserAuthenticationError'],
    binding: RenewalBinding = unboundRenewal,
    jkt?: string,
  ): Consultation => ({
    reader: identity,
    authorization,
    path: opts.path,
    value,
    principal,
    granted: principal === null ? undefined : grantOf(principal),
    makeNotAuthenticatedError,
    makeInsufficientScopeError: insufficientScope,
    makeInsufficientUserAuthenticationError: insufficientUserAuthentication,
    expand,
    renewal: value === null ? undefined : calls.renewal(value, opts, headers, makeError, binding, jkt),
  });

  /**
   * A reader that does not accept DPoP cannot check a proof: a DPoP-bound token (`cnf.jkt`) is
   * refused rather than taken as a bearer token (RFC 9449 §7.2, no downgrade), and so is a token
   * bound by any other method (mTLS's `x5t#S256`): no reader here checks it.
   */
  const unbound = (principal: Principal): Principal => {
    if (principal.cnf?.jkt !== undefined) throw makeInvalidTokenError('The access token is DPoP-bound, and DPoP is not accepted here');
    if (uncheckedConfirmation(principal.cnf) !== undefined) throw makeInvalidTokenError(UNCHECKED_BINDING);
    return principal;
  };
  const unboundRenewal: RenewalBinding = (principal) => void unbound(principal);

  const consultDPoP = async (
    reader: ReaderDPoP,
    opts: MiddlewareOptions<object>,
    authorization: string | undefined,
    headers: HeadersLike | null | undefined,
  ): Promise<Consultation> => {
    const credential = reader.credential(authorization, extract);
    if (credential === null) {
      if (autoError) throw makeNotAuthenticatedError();
      // A reader that takes DPoP only asks a client without a credential to step up in DPoP's scheme.
      const stepUp = reader.mode === 'required' ? reader.insufficientUserAuthentication : undefined;
      return consultation(opts, authorization, headers, null, null, undefined, makeInsufficientScopeError, stepUp);
    }
    const request = verifyRequestOf(opts, headers, origin, pathPrefix);
    const makeError = credential.dpop ? reader.invalidToken : makeInvalidTokenError;
    const proof = credential.dpop ? await reader.checkProof(credential.token, request, opts.ctx) : undefined;
    const known = peek?.(credential.token);
    const principal = known !== undefined ? calls.principalOf(known) : await calls.verify(credential.token, opts, headers, (verified) => verified, request, makeError);
    reader.checkBinding(principal, proof?.jkt, opts.ctx);
    // The jti is recorded only now: a proof sent with a refused token, or by another key than the
    // token's, takes no room in the replay store (which refuses new proofs when full).
    if (proof !== undefined) await proof.record();
    // A stream's rechecks hold the renewed principal to the key this request's proof was made with
    // (none for a token sent as Bearer): the stream has no other proof. The reader's own check and
    // the key are handed over, so that only a stream's renewal makes the closure that joins them.
    // A token sent with DPoP lacks a scope in the DPoP scheme (RFC 9449 §7.1); one sent as Bearer in Bearer's.
    // So does a step-up refusal (RFC 9470 §3).
    if (!credential.dpop) return consultation(opts, authorization, headers, credential.token, principal, makeError, makeInsufficientScopeError, undefined, reader.checkBinding);
    return consultation(opts, authorization, headers, credential.token, principal, makeError, reader.insufficientScope, reader.insufficientUserAuthentication, reader.checkBinding, proof?.jkt);
  };

  return {
    key: definition.key,
    identity,
    read,
    authorizationOf,
    consult(opts) {
      const { authorization, headers } = readCredential(opts.ctx, credentialSource);
      if (dpop !== undefined) return consultDPoP(dpop, opts, authorization, headers);
      const value = credentialIn(authorization);
      if (value === null) return consultation(opts, authorization, headers, null, null);
      // A token the verifier's cache remembers is answered at once: no trip through the event loop.
      const known = peek?.(value);
      if (known !== undefined) return consultation(opts, authorization, headers, value, unbound(calls.principalOf(known)));
      return calls.verify(value, opts, headers, (principal) => consultation(opts, authorization, headers, value, unbound(principal)));
    },
  };
}
