/**
 * The reader factory every reader is built on: a reader is a small declarative definition (the
 * ctx key, the scheme, how the `Authorization` value is read, the default error) plus the user's
 * options, assembled into three {@link securityStep}s (the reader, `requireScopes`, `withScopes`).
 * See docs/contract.md#reading-the-authorization-header and docs/contract.md#verified-readers.
 * @module
 */
import { initTRPC, type TRPCError } from '@trpc/server';
import { readCredential, type CredentialSource } from '../credential-source.js';
import { credentialInUrlError, insufficientScopeError, invalidTokenError, tokenExpiredError, verifierFailure } from '../errors.js';
import { scopeExpansion } from '../scope-hierarchy.js';
import { headersFromContext, readHeader, type HeadersLike } from '../headers.js';
import type { PrincipalRenewal } from '../subscription-lifetime.js';
import { SECURITY, type OAuth2SecurityScheme, type SecurityDeclaration } from '../security-declaration.js';
import { accumulateScopes, assertScopeName, type MiddlewareOptions } from '../security-scopes.js';
import { isPrincipal, type Principal, type TokenVerifier, type VerifyRequest } from './principal.js';
import { readerDPoP, type ReaderDPoP, type ReaderDPoPOptions } from '../dpop/reader-dpop.js';
import { securityStep, type ReaderCore } from './security-step.js';
import { consultationOf, type Consultation, type Consulted, type SecurityState } from './security-state.js';
import { READER_PARTS, type ReaderAssembly, type ReaderDefinition, type ReaderParts } from './definition.js';
import type { SecurityReader, SecurityReaderOptions } from './types.js';
import { originOf, verifyRequestOf } from './verify-request.js';

export type { SecurityReader, SecurityReaderOptions, ReaderContext, ReaderWithScopes } from './types.js';

/** The message of a scopes step on a reader that nothing would check. */
const UNCHECKED_SCOPES =
  'has no `verify`, so nothing would check these scopes: give the reader `verify`, or create it with `manualScopeCheck: true` and check the grant with assertGrantedScopes';

/** Assembles a reader from its definition and the user's options. */
export function createSecurityReader<
  $Key extends string,
  $Scope extends string,
  $AutoError extends boolean,
  $Principal extends Principal = never,
  $Manual extends boolean = false,
>(
  definition: ReaderDefinition<$Key>,
  options: SecurityReaderOptions<$AutoError, $Principal, $Manual>,
  assembly: ReaderAssembly = {},
): SecurityReader<$Key, $Scope, $AutoError, $Principal, $Manual> {
  const { key, extract, declaredScopes } = definition;
  const autoError = options.autoError ?? true;
  const getHeaders = options.getHeaders ?? headersFromContext;
  const origin = typeof options.origin === 'string' ? originOf(options.origin) : options.origin;
  // The default factories point every challenge at the metadata, when the reader knows where it is.
  const challenge = options.resourceMetadata === undefined ? undefined : { resourceMetadata: options.resourceMetadata };
  if (challenge !== undefined) invalidTokenError(undefined, challenge); // a URL no challenge can carry throws now, not per request
  const makeInvalidTokenError = options.makeInvalidTokenError ?? ((description: string) => invalidTokenError(description, challenge));
  const makeInsufficientScopeError = options.makeInsufficientScopeError ?? ((scopes: readonly string[]) => insufficientScopeError(scopes, challenge));
  const verify = options.verify as TokenVerifier<Principal> | undefined;
  if (verify !== undefined && typeof verify !== 'function') throw new TypeError('verify must be a function');
  const dpopOptions = (options as { dpop?: ReaderDPoPOptions }).dpop;
  const dpop = dpopOptions === undefined ? undefined : readerDPoP(dpopOptions);
  if (dpop !== undefined && verify === undefined) throw new TypeError("dpop needs `verify`: a token's binding (cnf.jkt) is read from its principal");
  if (dpop !== undefined && origin === undefined) {
    throw new TypeError('dpop needs `origin`: a proof names the URL the client used, which the Host header alone does not say');
  }
  const makeNotAuthenticatedError = options.makeNotAuthenticatedError ?? dpop?.notAuthenticated ?? (() => definition.defaultNotAuthenticatedError(challenge));
  const manualScopeCheck = options.manualScopeCheck === true;
  const { recheckInterval } = options;
  if (recheckInterval !== undefined && !(Number.isSafeInteger(recheckInterval) && recheckInterval > 0)) {
    throw new TypeError('recheckInterval must be a positive whole number of milliseconds');
  }
  const credentialSource: CredentialSource = {
    getHeaders,
    allowCredentialInUrl: options.allowCredentialInUrl === true,
    makeCredentialInUrlError: options.makeCredentialInUrlError ?? credentialInUrlError,
  };
  const makeTokenExpiredError = options.makeTokenExpiredError ?? tokenExpiredError;
  const schemeName = options.schemeName ?? definition.defaultSchemeName;
  const { description } = options;
  const securityScheme: OAuth2SecurityScheme = Object.freeze(description === undefined ? definition.scheme : { ...definition.scheme, description });
  for (const scope of declaredScopes) assertScopeName(scope, undefined);
  const expand = scopeExpansion(options.implies, declaredScopes);
  const verified = verify !== undefined;
  const peek = verify?.peek;
  const audience = audienceOf(verify);
  /** This reader's identity in a request's state: it is consulted once per request. */
  const identity = Object.freeze({});

  const credentialIn = (authorization: string | undefined) => {
    const value = extract(authorization);
    if (value === null && autoError) throw makeNotAuthenticatedError();
    return value;
  };
  const principalOf = (principal: unknown): Principal => {
    if (isPrincipal(principal)) return principal;
    throw verifierFailure(new TypeError('verify returned no principal (an object with `scopes`)'), makeInvalidTokenError);
  };
  /**
   * A reader that does not accept DPoP cannot check a proof: a DPoP-bound token (`cnf.jkt`) is
   * refused rather than taken as a bearer token (RFC 9449 §7.2, no downgrade).
   */
  const unbound = (principal: Principal): Principal => {
    if (principal.cnf?.jkt !== undefined) throw makeInvalidTokenError('The access token is DPoP-bound, and DPoP is not accepted here');
    return principal;
  };
  const refuse = (error: unknown): never => {
    throw verifierFailure(error, makeInvalidTokenError);
  };
  /** The verifier's principal; its failures become the reader's (one `then`, no extra awaits: this is the hot path). */
  const verifyToken = (
    token: string,
    opts: MiddlewareOptions<object>,
    headers: HeadersLike | null | undefined,
    fresh?: AbortSignal,
    request: VerifyRequest = verifyRequestOf(opts, headers, origin),
    makeError: (description: string) => TRPCError = makeInvalidTokenError,
  ): Promise<Principal> => {
    let pending: Promise<unknown>;
    try {
      pending = verify!(token, fresh === undefined ? { signal: opts.signal, request, ctx: opts.ctx } : { signal: fresh, request, ctx: opts.ctx, fresh: true });
    } catch (error) {
      return Promise.reject(verifierFailure(error, makeError));
    }
    return Promise.resolve(pending).then(principalOf, makeError === makeInvalidTokenError ? refuse : (error) => {
      throw verifierFailure(error, makeError);
    });
  };
  /**
   * A DPoP-accepting reader's consultation: the proof is checked on every request, before the
   * token (a cached principal included), and the token's binding against the proof key after.
   */
  const consultDPoP = async (
    reader: ReaderDPoP,
    opts: MiddlewareOptions<object>,
    authorization: string | undefined,
    headers: HeadersLike | null | undefined,
    consulted: (value: string | null, principal: Principal | null) => Consulted,
  ): Promise<Consulted> => {
    const credential = reader.credential(authorization, extract);
    if (credential === null) {
      if (autoError) throw makeNotAuthenticatedError();
      return consulted(null, null);
    }
    const request = verifyRequestOf(opts, headers, origin);
    const jkt = credential.dpop ? await reader.checkProof(credential.token, request, opts.ctx) : undefined;
    const known = peek?.(credential.token);
    const principal =
      known !== undefined
        ? principalOf(known)
        : await verifyToken(credential.token, opts, headers, undefined, request, credential.dpop ? reader.invalidToken : makeInvalidTokenError);
    reader.checkBinding(principal, jkt);
    return consulted(credential.token, principal);
  };
  /** How a subscription opened with `token` renews its principal: verified again, fresh, with the opening call's request. */
  const renewalOf = (token: string, opts: MiddlewareOptions<object>, headers: HeadersLike | null | undefined): PrincipalRenewal => ({
    makeExpiredError: makeTokenExpiredError,
    recheck: recheckInterval === undefined ? undefined : (signal) => verifyToken(token, opts, headers, signal),
    recheckInterval,
  });
  const core: ReaderCore = {
    key,
    verified,
    read: (opts) => credentialIn(readCredential(opts.ctx, credentialSource).authorization),
    consult(opts, state) {
      const done = consultationOf(state, identity);
      if (done !== undefined) return [state, done];
      const { authorization, headers } = readCredential(opts.ctx, credentialSource);
      if (dpop !== undefined) {
        return consultDPoP(dpop, opts, authorization, headers, (value, principal) => {
          // A subscription ends with its token, as on the bearer path (the proof was checked when it opened).
          const renewal = opts.type === 'subscription' && value !== null ? { renewal: renewalOf(value, opts, headers) } : {};
          const consultation: Consultation = { reader: identity, value, principal, makeNotAuthenticatedError, makeInsufficientScopeError, expand, ...renewal };
          return [{ scopes: state.scopes, consulted: [...state.consulted, consultation] } satisfies SecurityState, consultation];
        });
      }
      const value = credentialIn(authorization);
      const consulted = (principal: Principal | null): Consulted => {
        const consultation: Consultation =
          opts.type === 'subscription' && value !== null
            ? { reader: identity, value, principal, makeNotAuthenticatedError, makeInsufficientScopeError, expand, renewal: renewalOf(value, opts, headers) }
            : { reader: identity, value, principal, makeNotAuthenticatedError, makeInsufficientScopeError, expand };
        return [{ scopes: state.scopes, consulted: [...state.consulted, consultation] } satisfies SecurityState, consultation];
      };
      if (value === null) return consulted(null);
      const known = peek?.(value);
      return known === undefined ? verifyToken(value, opts, headers).then(unbound).then(consulted) : consulted(unbound(principalOf(known)));
    },
  };
  const checkedScopes = (scopes: string[], method: string) => {
    if (!verified && !manualScopeCheck) throw new TypeError(`${method}: the reader ${JSON.stringify(schemeName)} ${UNCHECKED_SCOPES}`);
    if (scopes.length === 0) throw new TypeError(`${method} needs at least one scope`);
    for (const scope of scopes) assertScopeName(scope, declaredScopes);
    return Object.freeze([...scopes]);
  };
  const declare = (scopes: readonly string[], optional?: boolean): SecurityDeclaration =>
    Object.freeze({
      schemeName,
      scheme: securityScheme,
      scopes,
      verified,
      ...(audience === undefined ? {} : { audience }),
      ...(optional === undefined ? {} : { optional }),
      ...(assembly.alternatives === undefined ? {} : { alternatives: assembly.alternatives }),
      ...(dpop === undefined
        ? {}
        : {
            dpop: Object.freeze({
              dpop_signing_alg_values_supported: dpop.algorithms,
              dpop_bound_access_tokens_required: dpop.mode === 'required',
            }),
          }),
    });

  const reader = securityStep(core, { putsCredential: true });
  let procedure: unknown;
  return Object.assign(reader, {
    schemeName,
    securityScheme,
    autoError,
    verified,
    makeNotAuthenticatedError,
    makeInvalidTokenError,
    makeInsufficientScopeError,
    requireScopes(...scopes: string[]) {
      const declared = checkedScopes(scopes, 'requireScopes');
      return Object.assign(securityStep(core, { putsCredential: false, accumulate: accumulateScopes(declared) }), { [SECURITY]: declare(declared) });
    },
    withScopes(...scopes: string[]) {
      const declared = checkedScopes(scopes, 'withScopes');
      // One tRPC step instead of two: each `.use()` step costs more than the reading itself.
      const step = securityStep(core, { putsCredential: true, accumulate: accumulateScopes(declared) });
      return Object.assign(step, { makeNotAuthenticatedError, [SECURITY]: declare(declared, !autoError) });
    },
    get procedure() {
      // Built on first use: most applications `.use()` the reader and never need a builder.
      return (procedure ??= initTRPC.create().procedure.use(reader as never));
    },
    [SECURITY]: declare(Object.freeze([]), !autoError),
    [READER_PARTS]: Object.freeze({
      definition,
      verify,
      getHeaders,
      origin,
      dpop: dpopOptions,
      streams: {
        allowCredentialInUrl: credentialSource.allowCredentialInUrl,
        makeCredentialInUrlError: credentialSource.makeCredentialInUrlError,
        recheckInterval,
        makeTokenExpiredError,
      },
    }) satisfies ReaderParts,
  }) as never;
}

/** The audiences a verifier says it accepts (`@trpc-oauth2/jwt`'s do), for the metadata check. */
function audienceOf(verify: TokenVerifier<Principal> | undefined): readonly string[] | undefined {
  const audience = (verify as { audience?: unknown } | undefined)?.audience;
  return Array.isArray(audience) && audience.every((entry) => typeof entry === 'string') ? Object.freeze([...audience]) : undefined;
}
