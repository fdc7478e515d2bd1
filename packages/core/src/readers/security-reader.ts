/**
 * The reader factory every reader is built on: a reader is a small declarative definition (the
 * ctx key, the scheme, how the `Authorization` value is read, the default error) plus the
 * user's options. A reader given `verify` is a verified reader: it turns the credential into a
 * principal and enforces the chain's scopes on it, whatever the order of the chain's steps. See
 * docs/contract.md#reading-the-authorization-header and docs/contract.md#verified-readers.
 * @module
 */
import { TRPCError, initTRPC, type TRPCProcedureBuilder, type TRPCUnsetMarker } from '@trpc/server';
import { credentialInUrlError, getOAuth2Error, invalidTokenError, tokenExpiredError } from '../errors.js';
import { readAuthorization, type CredentialSource } from '../credential-source.js';
import { headersFromContext, type HeadersLike } from '../headers.js';
import { endingWithCredentials, type PrincipalRenewal } from '../subscription-lifetime.js';
import { SECURITY, type OAuth2SecurityScheme, type SecurityDeclaration } from '../openapi.js';
import { isPrincipal, type Principal, type TokenVerifier } from './principal.js';
import { SECURITY_STATE, checkState, consultationOf, stateOf, type Consultation, type SecurityState } from './security-state.js';
import {
  accumulateScopes,
  assertScopeName,
  type MiddlewareOptions,
  type MiddlewareResult,
  type ScopesMiddleware,
  type ScopesOf,
  type SecurityScopes,
} from '../security-scopes.js';

/**
 * Options every reader accepts.
 *
 * @typeParam TAutoError - whether it refuses unauthenticated requests.
 * @typeParam TPrincipal - what `verify` returns (`never`: the reader does not verify).
 * @typeParam TManual - `true` when the application checks scopes itself (`manualScopeCheck`).
 * @example
 * ```ts
 * const options: SecurityReaderOptions<true, Principal> = {
 *   verify: async (token) => ({ scopes: token === 'admin-token' ? ['admin'] : [] }),
 *   makeInvalidTokenError: (description) => invalidTokenError(`Refused: ${description}`),
 * };
 * ```
 */
export interface SecurityReaderOptions<TAutoError extends boolean, TPrincipal extends Principal = never, TManual extends boolean = false> {
  /** The scheme's name in the OpenAPI document; defaults to the reader's kind. */
  schemeName?: string;
  /** The scheme's description in the OpenAPI document. */
  description?: string;
  /** `true` (default): refuse unauthenticated requests. `false`: put `null` on ctx and go on. */
  autoError?: TAutoError;
  /**
   * Where the request headers are. The default reads `ctx.req.headers` (Fetch `Request` or Node
   * `IncomingMessage`), then `ctx.headers`.
   */
  getHeaders?: (ctx: any) => HeadersLike | null | undefined;
  /** Builds the error thrown when the request is not authenticated; override to change it. */
  makeNotAuthenticatedError?: () => TRPCError;
  /**
   * Verifies the credential the reader found and returns its principal, which goes on
   * `ctx.principal`; the scopes the chain requires are then enforced on the principal's grant.
   * A refusal (`invalidTokenError`) answers 401 `invalid_token`, also with `autoError: false`.
   */
  verify?: TokenVerifier<TPrincipal>;
  /** Builds the error thrown for a credential `verify` refused; the default is `invalidTokenError`. */
  makeInvalidTokenError?: (description: string) => TRPCError;
  /**
   * A reader without `verify` refuses `requireScopes` / `withScopes` (nothing would check them)
   * unless created with `manualScopeCheck: true`: the scopes are then only declared and collected,
   * and the resolver checks the grant with `assertGrantedScopes`, as in FastAPI.
   */
  manualScopeCheck?: TManual;
  /**
   * Read a credential sent in the URL: the `connectionParams` query parameter tRPC's
   * `httpSubscriptionLink` sends when it has no `EventSource` that sends headers. Refused by
   * default (400 `invalid_request`): URLs are written to access logs, proxies and browser
   * history, where the token outlives the request; OAuth 2.1 drops the query method. Opt in only
   * for clients that cannot send headers, with tokens short-lived enough to be harmless in a log.
   */
  allowCredentialInUrl?: boolean;
  /** Builds the error thrown for a credential in the URL; the default is `credentialInUrlError`. */
  makeCredentialInUrlError?: () => TRPCError;
  /**
   * Milliseconds between two verifications of the token of a running subscription (`verify` is
   * asked with `fresh: true`, bypassing caches): a token the verifier refuses now (revoked, as
   * introspection tells) or that no longer grants the chain's scopes ends the stream. Without it,
   * a stream is verified once, when it opens, and ends at the principal's `expiresAt`.
   */
  recheckInterval?: number;
  /** Builds the error a subscription's stream ends with when its token expires; the default is `tokenExpiredError`. */
  makeTokenExpiredError?: () => TRPCError;
}

/** What a reader puts on ctx: `string`, or `string | null` when `autoError` may be `false`. */
type ReadValue<TAutoError extends boolean> = TAutoError extends false ? string | null : string;

/**
 * What a reader adds to ctx: its value under `TKey`, and for a verified reader the principal
 * (`null` too when `autoError` may be `false`).
 *
 * @example
 * ```ts
 * type Ctx = ReaderContext<'token', false, JwtPrincipal>; // { token: string | null; principal: JwtPrincipal | null }
 * ```
 */
export type ReaderContext<TKey extends string, TAutoError extends boolean, TPrincipal extends Principal> = [TPrincipal] extends [never]
  ? { [K in TKey]: ReadValue<TAutoError> }
  : { [K in TKey | 'principal']: K extends 'principal' ? (TAutoError extends false ? TPrincipal | null : TPrincipal) : ReadValue<TAutoError> };

/** A type error with a message to read, in tRPC's manner: the message is what the compiler shows. */
export type TypeError<TMessage extends string> = TMessage & { readonly __typeError: TMessage };

/**
 * What `requireScopes` / `withScopes` accept: at least one declared scope; or, when the reader
 * declares none, or has no `verify` and no `manualScopeCheck: true`, a message saying so.
 */
type ScopeArguments<TScope extends string, $Required extends TScope, TPrincipal extends Principal, TManual extends boolean> = [
  TScope,
] extends [never]
  ? [TypeError<'This reader declares no scopes: list them in its `scopes` (or `flows`) option first'>]
  : [TPrincipal] extends [never]
    ? [TManual] extends [true]
      ? [$Required, ...$Required[]]
      : [TypeError<'This reader has no `verify`, so nothing would check these scopes: give it `verify`, or create it with `manualScopeCheck: true` and check the grant yourself'>]
    : [$Required, ...$Required[]];

/**
 * A security reader: a tRPC middleware (`.use(reader)`) that reads the `Authorization` header
 * and puts what it found on `ctx[TKey]` (and, with `verify`, the verified principal on
 * `ctx.principal`), plus the scheme metadata OpenAPI documents are built from. At run time it
 * also starts `ctx.securityScopes` (empty) when no scope was required yet; the type shows
 * `ctx.securityScopes` from the first `requireScopes` on.
 *
 * @typeParam TKey - the ctx key it sets (`'token'` or `'authorization'`).
 * @typeParam TScope - the scope names its scheme declares.
 * @typeParam TAutoError - whether it refuses unauthenticated requests.
 * @typeParam TPrincipal - what its `verify` returns (`never`: it does not verify).
 * @typeParam TManual - whether it was created with `manualScopeCheck: true`.
 * @example
 * ```ts
 * const auth: SecurityReader<'token', 'me' | 'items', true, Principal> = oauth2PasswordBearer({
 *   tokenUrl: 'token',
 *   scopes: { me: 'Read me', items: 'Read items' },
 *   verify: async (token) => ({ scopes: token === 'admin-token' ? ['me', 'items'] : ['me'] }),
 * });
 * ```
 */
export interface SecurityReader<
  TKey extends string,
  TScope extends string,
  TAutoError extends boolean,
  TPrincipal extends Principal = never,
  TManual extends boolean = false,
> {
  (opts: MiddlewareOptions<object>): Promise<MiddlewareResult<ReaderContext<TKey, TAutoError, TPrincipal>>>;
  /** The scheme's name in the OpenAPI document. */
  readonly schemeName: string;
  /** The OpenAPI Security Scheme Object (`type: 'oauth2'` with its flows). */
  readonly securityScheme: OAuth2SecurityScheme;
  readonly autoError: TAutoError;
  /** Whether the reader verifies credentials (it was given `verify`). */
  readonly verified: boolean;
  /** The error thrown for an unauthenticated request (the `makeNotAuthenticatedError` option). */
  makeNotAuthenticatedError(): TRPCError;
  /** The error thrown for a credential `verify` refused (the `makeInvalidTokenError` option). */
  makeInvalidTokenError(description: string): TRPCError;
  /**
   * A middleware that requires scopes of this scheme: they accumulate on `ctx.securityScopes`
   * and in the operation's OpenAPI security requirement. Undeclared names fail to compile and,
   * from plain JavaScript, throw when the procedure is defined. On a verified reader the step
   * also verifies the credential (once per request, shared with the reader's own step) and
   * enforces every scope accumulated so far.
   *
   * `$Ctx` is inferred from the `.use()` call it is written in: that is how the scopes required
   * earlier in the chain join the union. Leave it to inference.
   */
  requireScopes<const $Required extends TScope, $Ctx = unknown>(
    ...scopes: ScopeArguments<TScope, $Required, TPrincipal, TManual>
  ): ScopesMiddleware<$Required, $Ctx>;
  /**
   * The reader and `requireScopes(...scopes)` in one middleware (FastAPI's
   * `Security(scheme, scopes=[...])`): puts `ctx[TKey]` (and `ctx.principal`) on ctx and
   * accumulates the scopes, in a single tRPC step, which is cheaper per request than
   * `.use(reader).use(reader.requireScopes(…))`.
   *
   * @example
   * ```ts
   * const items = t.procedure.use(auth.withScopes('me', 'items')); // ctx.token, ctx.principal, ctx.securityScopes
   * ```
   */
  withScopes<const $Required extends TScope, $Ctx = unknown>(
    ...scopes: ScopeArguments<TScope, $Required, TPrincipal, TManual>
  ): ReaderWithScopes<TKey, TAutoError, $Required, $Ctx, TPrincipal>;
  /**
   * The reader as a procedure builder, for `.concat()`: `t.procedure.concat(reader.procedure)`.
   */
  readonly procedure: TRPCProcedureBuilder<
    object,
    object,
    ReaderContext<TKey, TAutoError, TPrincipal>,
    TRPCUnsetMarker,
    TRPCUnsetMarker,
    TRPCUnsetMarker,
    TRPCUnsetMarker,
    false
  >;
  readonly [SECURITY]: SecurityDeclaration;
  /** Types only, never set at run time: what the reader declares, for helpers such as `anyOf`. */
  readonly '~types'?: { readonly key: TKey; readonly scope: TScope; readonly principal: TPrincipal };
}

/**
 * A reader and the scopes it requires, as one middleware (`reader.withScopes(...)`).
 *
 * @example
 * ```ts
 * const mw: ReaderWithScopes<'token', true, 'me', unknown, Principal> = auth.withScopes('me');
 * ```
 */
export interface ReaderWithScopes<
  TKey extends string,
  TAutoError extends boolean,
  TRequired extends string,
  TCtx,
  TPrincipal extends Principal = never,
> {
  (
    opts: MiddlewareOptions<TCtx>,
  ): Promise<MiddlewareResult<ReaderContext<TKey, TAutoError, TPrincipal> & { securityScopes: SecurityScopes<ScopesOf<TCtx> | TRequired> }>>;
  makeNotAuthenticatedError(): TRPCError;
  readonly [SECURITY]: SecurityDeclaration;
}

/** How a kind of reader turns the `Authorization` value into what it puts on ctx. */
export interface ReaderDefinition<TKey extends string> {
  key: TKey;
  scheme: OAuth2SecurityScheme;
  defaultSchemeName: string;
  declaredScopes: readonly string[];
  /** `null` means not authenticated. */
  extract: (authorization: string | undefined) => string | null;
  defaultNotAuthenticatedError: () => TRPCError;
}

/**
 * What `anyOf` needs of each reader it combines, kept under a symbol of this module (not
 * exported from the package).
 */
export interface ReaderParts {
  readonly definition: ReaderDefinition<string>;
  readonly verify: TokenVerifier<Principal> | undefined;
  readonly getHeaders: (ctx: any) => HeadersLike | null | undefined;
  /** The options of subscriptions and of where the credential is, for `anyOf` to carry over. */
  readonly streams: Pick<SecurityReaderOptions<boolean, Principal>, 'allowCredentialInUrl' | 'makeCredentialInUrlError' | 'recheckInterval' | 'makeTokenExpiredError'>;
}

/** The key of a reader's {@link ReaderParts}. */
export const READER_PARTS: unique symbol = Symbol('trpc-oauth2.reader-parts') as never;

/** What `anyOf` adds when it assembles its reader: the schemes it accepts besides the first. */
export interface ReaderAssembly {
  readonly alternatives?: SecurityDeclaration['alternatives'];
}

/** tRPC codes of server faults: a verifier failing with one of these keeps it. */
const SERVER_FAULTS: ReadonlySet<string> = new Set(['INTERNAL_SERVER_ERROR', 'NOT_IMPLEMENTED', 'BAD_GATEWAY', 'SERVICE_UNAVAILABLE', 'GATEWAY_TIMEOUT']);

/** What a verifier's failure becomes: its refusal answers 401 `invalid_token`; anything else is a server fault. */
function verifierFailure(error: unknown, makeInvalidTokenError: (description: string) => TRPCError): TRPCError {
  const refusal = getOAuth2Error(error);
  if (refusal?.code === 'ERR_INVALID_TOKEN') return makeInvalidTokenError(refusal.message);
  if (error instanceof TRPCError && SERVER_FAULTS.has(error.code)) return error;
  return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: 'The token verifier failed', cause: error });
}

/** A state with a reader consulted, and that reader's consultation. */
type Consulted = [SecurityState, Consultation];

/**
 * `then(consulted)`, at once when the consultation is already known (a verifier's `peek`, or the
 * reader consulted earlier in the request), else once it is: a known token costs no trip through
 * the event loop. A synchronous throw is a refusal too: tRPC answers it as it answers a rejection.
 */
const whenConsulted = <$Result>(consulted: Consulted | Promise<Consulted>, then: (consulted: Consulted) => $Result): $Result | Promise<$Result> =>
  consulted instanceof Promise ? consulted.then(then) : then(consulted);

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
  const makeNotAuthenticatedError = options.makeNotAuthenticatedError ?? definition.defaultNotAuthenticatedError;
  const makeInvalidTokenError = options.makeInvalidTokenError ?? invalidTokenError;
  const verify = options.verify as TokenVerifier<Principal> | undefined;
  if (verify !== undefined && typeof verify !== 'function') throw new TypeError('verify must be a function');
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
  const securityScheme: OAuth2SecurityScheme = Object.freeze(
    options.description === undefined ? definition.scheme : { ...definition.scheme, description: options.description },
  );
  for (const scope of declaredScopes) assertScopeName(scope, undefined);
  const verified = verify !== undefined;
  const peek = verify?.peek;
  /** This reader's identity in a request's state: it is consulted once per request. */
  const identity = Object.freeze({});

  const read = (ctx: object) => {
    const value = extract(readAuthorization(ctx, credentialSource));
    if (value === null && autoError) throw makeNotAuthenticatedError();
    return value;
  };
  const refuse = (error: unknown): never => {
    throw verifierFailure(error, makeInvalidTokenError);
  };
  const principalOf = (principal: unknown): Principal =>
    isPrincipal(principal) ? principal : refuse(new TypeError('verify returned no principal (an object with `scopes`)'));
  /** The verifier's principal; its failures become the reader's (one `then`, no extra awaits: this is the hot path). */
  const verifyToken = (token: string, signal: AbortSignal | undefined, fresh?: true): Promise<Principal> => {
    let pending: Promise<unknown>;
    try {
      pending = verify!(token, fresh ? { signal, fresh } : signal === undefined ? undefined : { signal });
    } catch (error) {
      return Promise.reject(verifierFailure(error, makeInvalidTokenError));
    }
    return Promise.resolve(pending).then(principalOf, refuse);
  };
  /** How a subscription opened with `token` renews its principal. */
  const renewalOf = (token: string): PrincipalRenewal => ({
    makeExpiredError: makeTokenExpiredError,
    recheck: recheckInterval === undefined ? undefined : (signal) => verifyToken(token, signal, true),
    recheckInterval,
  });
  /** `next(…)`, with a subscription's stream ending with the credentials of `state`. */
  const proceed = (opts: MiddlewareOptions<object>, state: SecurityState, ctx: object) =>
    opts.type === 'subscription' ? endingWithCredentials(opts.next({ ctx }), state, opts.signal) : opts.next({ ctx });
  /**
   * The state with this reader consulted: reads and verifies the credential, unless done already in
   * this request (then synchronously).
   */
  const consult = (opts: MiddlewareOptions<object>, state: SecurityState): Consulted | Promise<Consulted> => {
    const done = consultationOf(state, identity);
    if (done !== undefined) return [state, done];
    const value = read(opts.ctx);
    const consulted = (principal: Principal | null): Consulted => {
      const consultation: Consultation =
        opts.type === 'subscription' && value !== null
          ? { reader: identity, value, principal, makeNotAuthenticatedError, renewal: renewalOf(value) }
          : { reader: identity, value, principal, makeNotAuthenticatedError };
      return [{ scopes: state.scopes, consulted: [...state.consulted, consultation] }, consultation];
    };
    if (value === null) return consulted(null);
    const known = peek?.(value);
    return known === undefined ? verifyToken(value, opts.signal).then(consulted) : consulted(principalOf(known));
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

  const reader = verified
    ? (opts: MiddlewareOptions<object>) =>
        whenConsulted(consult(opts, stateOf(opts.ctx)), ([state, consultation]) => {
          checkState(state);
          const ctx = { [key]: consultation.value, principal: consultation.principal, securityScopes: state.scopes, [SECURITY_STATE]: state };
          return proceed(opts, state, ctx);
        })
    : (opts: MiddlewareOptions<object>) => {
        const state = stateOf(opts.ctx);
        return opts.next({ ctx: { [key]: read(opts.ctx), securityScopes: state.scopes, [SECURITY_STATE]: state } });
      };

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
      const accumulate = accumulateScopes(declared);
      const scopesStep = verified
        ? (opts: MiddlewareOptions<object>) => {
            const before = stateOf(opts.ctx);
            return whenConsulted(consult(opts, before), ([consulted]) => {
              const state: SecurityState = { scopes: accumulate(before.scopes), consulted: consulted.consulted };
              checkState(state);
              return proceed(opts, state, { securityScopes: state.scopes, [SECURITY_STATE]: state });
            });
          }
        : (opts: MiddlewareOptions<object>) => {
            const before = stateOf(opts.ctx);
            const state: SecurityState = { scopes: accumulate(before.scopes), consulted: before.consulted };
            checkState(state);
            return opts.next({ ctx: { securityScopes: state.scopes, [SECURITY_STATE]: state } });
          };
      return Object.assign(scopesStep, { [SECURITY]: declare(declared) });
    },
    withScopes(...scopes: string[]) {
      const declared = checkedScopes(scopes, 'withScopes');
      const accumulate = accumulateScopes(declared);
      // One tRPC step instead of two: each `.use()` step costs more than the reading itself.
      const readerWithScopes = verified
        ? (opts: MiddlewareOptions<object>) => {
            const before = stateOf(opts.ctx);
            return whenConsulted(consult(opts, before), ([consulted, consultation]) => {
              const state: SecurityState = { scopes: accumulate(before.scopes), consulted: consulted.consulted };
              checkState(state);
              const ctx = { [key]: consultation.value, principal: consultation.principal, securityScopes: state.scopes, [SECURITY_STATE]: state };
              return proceed(opts, state, ctx);
            });
          }
        : (opts: MiddlewareOptions<object>) => {
            const before = stateOf(opts.ctx);
            const value = read(opts.ctx);
            const state: SecurityState = { scopes: accumulate(before.scopes), consulted: before.consulted };
            checkState(state);
            return opts.next({ ctx: { [key]: value, securityScopes: state.scopes, [SECURITY_STATE]: state } });
          };
      return Object.assign(readerWithScopes, { makeNotAuthenticatedError, [SECURITY]: declare(declared, !autoError) });
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
      streams: {
        allowCredentialInUrl: credentialSource.allowCredentialInUrl,
        makeCredentialInUrlError: credentialSource.makeCredentialInUrlError,
        recheckInterval,
        makeTokenExpiredError,
      },
    }) satisfies ReaderParts,
  }) as never;
}
