/**
 * The public types of the readers: their options, what they put on ctx, and the reader itself
 * with its `requireScopes` / `withScopes` steps. See docs/contract.md#verified-readers.
 * @module
 */
import type { TRPCError, TRPCProcedureBuilder, TRPCUnsetMarker } from '@trpc/server';
import type { HeadersLike } from '../headers.js';
import { SECURITY, type OAuth2SecurityScheme, type SecurityDeclaration } from '../security-declaration.js';
import type { AccumulatedScopes, MiddlewareOptions, MiddlewareResult, NeedingContext, ScopesMiddleware, SecurityScopes } from '../security-scopes.js';
import type { TypeError } from '../type-error.js';
import type { Principal, TokenVerifier } from './principal.js';

/**
 * Options every reader accepts.
 *
 * @typeParam TAutoError - whether it refuses unauthenticated requests.
 * @typeParam TPrincipal - what `verify` returns (`never`: the reader does not verify).
 * @typeParam TManual - `true` when the application checks scopes itself (`manualScopeCheck`).
 * @typeParam TCtx - the ctx `verify` reads (`any`: it declares none).
 * @typeParam TOriginCtx - the ctx an `origin` function reads.
 * @typeParam THeadersCtx - the ctx `getHeaders` reads.
 * @example
 * ```ts
 * const options: SecurityReaderOptions<true, Principal> = {
 *   verify: async (token) => ({ scopes: token === 'admin-token' ? ['admin'] : [] }),
 *   makeInvalidTokenError: (description) => invalidTokenError(`Refused: ${description}`),
 * };
 * ```
 */
export interface SecurityReaderOptions<
  TAutoError extends boolean,
  TPrincipal extends Principal = never,
  TManual extends boolean = false,
  TCtx = any,
  TOriginCtx = any,
  THeadersCtx = any,
> {
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
  getHeaders?: (ctx: THeadersCtx) => HeadersLike | null | undefined;
  /**
   * The public origin of this API (`https://api.example`), for the URL a verifier sees
   * (`request.url`) and a DPoP proof names. Set it behind a proxy; without it the request's own
   * origin is used. A function of ctx gives it per request, for an application that learns its
   * origin only when it runs (a server on a port it picked, several servers in one process).
   */
  origin?: string | ((ctx: TOriginCtx) => string);
  /**
   * The path a proxy in front of this API strips off before the request reaches it (`/svc` when
   * clients call `https://api.example/svc/items` and the application sees `/items`): it goes
   * between the origin and the path in the URL a verifier sees and a DPoP proof names. A path
   * only (`/svc`); anything else throws a `TypeError` when the reader is created.
   */
  pathPrefix?: string;
  /** Builds the error thrown when the request is not authenticated; override to change it. */
  makeNotAuthenticatedError?: () => TRPCError;
  /**
   * Verifies the credential the reader found and returns its principal, which goes on
   * `ctx.principal`; the scopes the chain requires are then enforced on the principal's grant.
   * A refusal (`invalidTokenError`) answers 401 `invalid_token`, also with `autoError: false`.
   */
  verify?: TokenVerifier<TPrincipal, TCtx>;
  /** Builds the error thrown for a credential `verify` refused; the default is `invalidTokenError`. */
  makeInvalidTokenError?: (description: string) => TRPCError;
  /**
   * Builds the 403 thrown when the principal lacks a scope the chain requires, given every scope
   * the chain accumulated; the default is `insufficientScopeError`.
   */
  makeInsufficientScopeError?: (scopes: readonly string[]) => TRPCError;
  /**
   * The URL of this resource's protected resource metadata (RFC 9728), e.g.
   * `resourceMetadataUrl(resource)` of `@trpc-oauth2/openapi`: the default error factories add
   * `resource_metadata="…"` to every challenge (401 and 403), so a client that knows nothing in
   * advance finds the authorization server (docs/contract.md#challenges).
   */
  resourceMetadata?: string;
  /**
   * What each declared scope implies (docs/contract.md#scope-hierarchy): a principal granting a
   * key satisfies a requirement of any scope it implies, transitively. Keys and values must be
   * declared scopes.
   */
  implies?: Readonly<Partial<Record<string, readonly string[]>>>;
  /**
   * A reader without `verify` refuses `requireScopes` / `withScopes` (nothing would check them)
   * unless created with `manualScopeCheck: true`: the scopes are then only declared and collected,
   * and the resolver checks the grant with `assertGrantedScopes(ctx.securityScopes, granted, reader)`,
   * as in FastAPI (given the reader, under its `implies` and with its challenge).
   */
  manualScopeCheck?: TManual;
  /**
   * Read a credential sent in the URL: the `connectionParams` query parameter tRPC's
   * `httpSubscriptionLink` sends when it has no `EventSource` that sends headers. Refused by
   * default (400 `invalid_request`): URLs are written to access logs, proxies and browser
   * history, where the token outlives the request; OAuth 2.1 drops the query method. Opt in only
   * for clients that cannot send headers, with tokens short-lived enough to be harmless in a log.
   * See docs/contract.md#subscriptions.
   */
  allowCredentialInUrl?: boolean;
  /**
   * Builds the error thrown for a credential in the URL; the default is `credentialInUrlError` with the reader's
   * `resourceMetadata` (`dpopCredentialInUrlError`, in the schemes it accepts, for a reader given `dpop`).
   */
  makeCredentialInUrlError?: () => TRPCError;
  /**
   * Milliseconds between two verifications of the token of a running subscription (`verify` is
   * asked with `fresh: true`, bypassing caches): a token the verifier refuses now (revoked, as
   * introspection tells), that no longer grants the chain's scopes, or that is now bound otherwise
   * than when the stream opened (to another key than its DPoP proof's, or at all when it came as
   * `Bearer`) ends the stream, and so does a recheck still unanswered when the next is due (503). Without it, a stream is verified once,
   * when it opens, and ends at the principal's `expiresAt`.
   */
  recheckInterval?: number;
  /**
   * Builds the error a stream (a subscription's, or a streamed query's or mutation's) ends with
   * when its token expires. The default is
   * the reader's `invalid_token` "The access token expired" (`tokenExpiredError`), with its
   * `resourceMetadata` and its `makeInvalidTokenError`, in the scheme the token came in (DPoP's for a DPoP-bound one).
   */
  makeTokenExpiredError?: () => TRPCError;
}

/** What a reader puts on ctx: `string`, or `string | null` when `autoError` may be `false`. */
type ReadValue<TAutoError extends boolean> = TAutoError extends false ? string | null : string;

/**
 * What a verified reader adds to the ctx of a subscription besides its principal (see
 * docs/contract.md#subscriptions).
 *
 * @example
 * ```ts
 * t.procedure.use(auth).subscription(async function* ({ ctx }) {
 *   for await (const [item] of on(emitter, 'item', { signal: ctx.streamSignal })) yield item;
 * });
 * ```
 */
export interface StreamContext {
  /**
   * On a subscription: aborts once its stream ended, whichever way (the client went away, the
   * token expired, a recheck refused it, the source finished or failed); one per call, however
   * many security steps the chain has. A resolver waiting on an event source stops on it: tRPC
   * does not abort `opts.signal` when a stream ends by itself. Absent on queries and mutations.
   */
  readonly streamSignal?: AbortSignal;
}

/**
 * What a reader adds to ctx: its value under `TKey`, and for a verified reader the principal
 * (`null` too when `autoError` may be `false`) and, on a subscription, `streamSignal`.
 *
 * @example
 * ```ts
 * type Ctx = ReaderContext<'token', false, JwtPrincipal>; // { token: string | null; principal: JwtPrincipal | null }
 * ```
 */
export type ReaderContext<TKey extends string, TAutoError extends boolean, TPrincipal extends Principal> = [TPrincipal] extends [never]
  ? { [K in TKey]: ReadValue<TAutoError> }
  : { [K in TKey | 'principal']: K extends 'principal' ? (TAutoError extends false ? TPrincipal | null : TPrincipal) : ReadValue<TAutoError> } & StreamContext;

/**
 * What `requireScopes` / `withScopes` accept: at least one declared scope; or, when the reader
 * declares none, or has no `verify` and no `manualScopeCheck: true`, a message saying so.
 */
type ScopeArguments<TScope extends string, $Required extends TScope, TPrincipal extends Principal, TManual extends boolean> = [
  TScope,
] extends [never]
  ? [TypeError<'This reader declares no scopes: list them in its `scopes` (or `flows`) option first (for anyOf: in every reader of the group, which requires only the scopes they all declare)'>]
  : [TPrincipal] extends [never]
    ? [TManual] extends [true]
      ? [$Required, ...$Required[]]
      : [TypeError<'This reader has no `verify`, so nothing would check these scopes: give it `verify`, or create it with `manualScopeCheck: true` and check the grant yourself'>]
    : [$Required, ...$Required[]];

/**
 * The ctx a reader needs on the procedure it is used on: what its `verify`, `origin` and
 * `getHeaders` declare they read (a verifier's `VerifyOptions<{ tenant: string }>`), all of it,
 * or `object` when they need nothing of it: they declare none (`any`, `unknown`), or only members
 * that may be missing (`{ tenant?: string }`, which any ctx satisfies). A procedure whose ctx lacks
 * what is needed does not compile: the verifier would read `undefined` where its type promised a
 * value. Each option has its own parameter, so each may declare a ctx of its own.
 *
 * @example
 * ```ts
 * type Needs = NeededContext<{ tenant: string }, { publicUrl: string }>; // { tenant: string } & { publicUrl: string }
 * type Nothing = NeededContext<any>; // object
 * ```
 */
export type NeededContext<TVerifyCtx, TOriginCtx = any, THeadersCtx = any> = Joined<Needed<TVerifyCtx>, Joined<Needed<TOriginCtx>, Needed<THeadersCtx>>>;

/** What one option needs of ctx: `object` (nothing) for `any`, `unknown` or only optional members. */
type Needed<TCtx> = unknown extends TCtx ? object : object extends TCtx ? object : TCtx extends object ? TCtx : object;

/** Both needs, without an `& object` where one is no need at all (`anyOf` joins its readers' so). */
export type Joined<A extends object, B extends object> = object extends A ? B : object extends B ? A : A & B;

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
 * @typeParam TNeeds - the ctx it needs on the procedure (see {@link NeededContext}; `object`: none).
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
  TNeeds extends object = object,
> {
  (opts: MiddlewareOptions<TNeeds>): Promise<MiddlewareResult<ReaderContext<TKey, TAutoError, TPrincipal>>>;
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
  /** The 403 thrown when the principal lacks a required scope (the `makeInsufficientScopeError` option). */
  makeInsufficientScopeError(scopes: readonly string[]): TRPCError;
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
  ): ScopesMiddleware<$Required, $Ctx, TNeeds>;
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
  ): ReaderWithScopes<TKey, TAutoError, $Required, $Ctx, TPrincipal, TNeeds>;
  /**
   * The reader as a procedure builder, for `.concat()`: `t.procedure.concat(reader.procedure)`.
   */
  readonly procedure: TRPCProcedureBuilder<
    TNeeds,
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
  readonly '~types'?: { readonly key: TKey; readonly scope: TScope; readonly principal: TPrincipal; readonly needs: TNeeds };
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
  TNeeds extends object = object,
> {
  (
    opts: MiddlewareOptions<TCtx> & NeedingContext<TNeeds>,
  ): Promise<MiddlewareResult<ReaderContext<TKey, TAutoError, TPrincipal> & { securityScopes: SecurityScopes<AccumulatedScopes<TCtx, TRequired>> }>>;
  makeNotAuthenticatedError(): TRPCError;
  readonly [SECURITY]: SecurityDeclaration;
}
