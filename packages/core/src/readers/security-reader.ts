/**
 * The reader factory every reader is built on: a reader is a small declarative definition (the
 * ctx key, the scheme, how the `Authorization` value is read, the default error) plus the user's
 * options, assembled into three {@link securityStep}s (the reader, `requireScopes`, `withScopes`).
 * See docs/contract.md#reading-the-authorization-header and docs/contract.md#verified-readers.
 * @module
 */
import { initTRPC } from '@trpc/server';
import { invalidTokenError, verifierFailure } from '../errors.js';
import { headersFromContext, readHeader, type HeadersLike } from '../headers.js';
import { SECURITY, type OAuth2SecurityScheme, type SecurityDeclaration } from '../security-declaration.js';
import { accumulateScopes, assertScopeName, type MiddlewareOptions } from '../security-scopes.js';
import { isPrincipal, type Principal, type TokenVerifier } from './principal.js';
import { securityStep, type ReaderCore } from './security-step.js';
import { consultationOf, type Consultation, type Consulted, type SecurityState } from './security-state.js';
import { READER_PARTS, type ReaderAssembly, type ReaderDefinition, type ReaderParts } from './definition.js';
import type { SecurityReader, SecurityReaderOptions } from './types.js';
import { verifyRequestOf } from './verify-request.js';

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
  const origin = options.origin === undefined ? undefined : new URL(options.origin).origin;
  const makeNotAuthenticatedError = options.makeNotAuthenticatedError ?? definition.defaultNotAuthenticatedError;
  const makeInvalidTokenError = options.makeInvalidTokenError ?? invalidTokenError;
  const verify = options.verify as TokenVerifier<Principal> | undefined;
  if (verify !== undefined && typeof verify !== 'function') throw new TypeError('verify must be a function');
  const manualScopeCheck = options.manualScopeCheck === true;
  const schemeName = options.schemeName ?? definition.defaultSchemeName;
  const securityScheme: OAuth2SecurityScheme = Object.freeze(
    options.description === undefined ? definition.scheme : { ...definition.scheme, description: options.description },
  );
  for (const scope of declaredScopes) assertScopeName(scope, undefined);
  const verified = verify !== undefined;
  const peek = verify?.peek;
  /** This reader's identity in a request's state: it is consulted once per request. */
  const identity = Object.freeze({});

  const credentialIn = (headers: HeadersLike | null | undefined) => {
    const value = extract(readHeader(headers, 'authorization'));
    if (value === null && autoError) throw makeNotAuthenticatedError();
    return value;
  };
  const principalOf = (principal: unknown): Principal => {
    if (isPrincipal(principal)) return principal;
    throw verifierFailure(new TypeError('verify returned no principal (an object with `scopes`)'), makeInvalidTokenError);
  };
  const refuse = (error: unknown): never => {
    throw verifierFailure(error, makeInvalidTokenError);
  };
  /** The verifier's principal; its failures become the reader's (one `then`, no extra awaits: this is the hot path). */
  const verifyToken = (token: string, opts: MiddlewareOptions<object>, headers: HeadersLike | null | undefined): Promise<Principal> => {
    let pending: Promise<unknown>;
    try {
      pending = verify!(token, { signal: opts.signal, request: verifyRequestOf(opts, headers, origin), ctx: opts.ctx });
    } catch (error) {
      return Promise.reject(verifierFailure(error, makeInvalidTokenError));
    }
    return Promise.resolve(pending).then(principalOf, refuse);
  };
  const core: ReaderCore = {
    key,
    verified,
    read: (opts) => credentialIn(getHeaders(opts.ctx)),
    consult(opts, state) {
      const done = consultationOf(state, identity);
      if (done !== undefined) return [state, done];
      const headers = getHeaders(opts.ctx);
      const value = credentialIn(headers);
      const consulted = (principal: Principal | null): Consulted => {
        const consultation: Consultation = { reader: identity, value, principal, makeNotAuthenticatedError };
        return [{ scopes: state.scopes, consulted: [...state.consulted, consultation] } satisfies SecurityState, consultation];
      };
      if (value === null) return consulted(null);
      const known = peek?.(value);
      return known === undefined ? verifyToken(value, opts, headers).then(consulted) : consulted(principalOf(known));
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
      ...(optional === undefined ? {} : { optional }),
      ...(assembly.alternatives === undefined ? {} : { alternatives: assembly.alternatives }),
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
    [READER_PARTS]: Object.freeze({ definition, verify, getHeaders, origin }) satisfies ReaderParts,
  }) as never;
}
