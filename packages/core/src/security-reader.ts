/**
 * The reader factory every reader is built on: a reader is a small declarative definition (the
 * ctx key, the scheme, how the `Authorization` value is read, the default error) plus the
 * user's options. See docs/contract.md#reading-the-authorization-header.
 * @module
 */
import { initTRPC, type TRPCError, type TRPCProcedureBuilder, type TRPCUnsetMarker } from '@trpc/server';
import { headersFromContext, readHeader, type HeadersLike } from './headers.js';
import { SECURITY, type OAuth2SecurityScheme, type SecurityDeclaration } from './openapi.js';
import {
  NO_SCOPES,
  assertScopeName,
  requiredScopesOf,
  scopesMiddleware,
  type MiddlewareOptions,
  type MiddlewareResult,
  type ScopesMiddleware,
  type ScopesOf,
  type SecurityScopes,
} from './security-scopes.js';

/** Options every reader accepts. */
export interface SecurityReaderOptions<TAutoError extends boolean> {
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
}

/** What a reader puts on ctx: `string`, or `string | null` when `autoError` may be `false`. */
type ReadValue<TAutoError extends boolean> = TAutoError extends false ? string | null : string;

/** A type error with a message to read, in tRPC's manner: the message is what the compiler shows. */
type TypeError<TMessage extends string> = TMessage & { readonly __typeError: TMessage };

/**
 * What `requireScopes` / `withScopes` accept: at least one declared scope, or, when the reader
 * declares none, a message saying so instead of `never`.
 */
type ScopeArguments<TScope extends string, $Required extends TScope> = [TScope] extends [never]
  ? [TypeError<'This reader declares no scopes: list them in its `scopes` (or `flows`) option first'>]
  : [$Required, ...$Required[]];

/**
 * A security reader: a tRPC middleware (`.use(reader)`) that reads the `Authorization` header
 * and puts what it found on `ctx[TKey]`, plus the scheme metadata OpenAPI documents are built from.
 * At run time it also starts `ctx.securityScopes` (empty) when no scope was required yet; the
 * type shows `ctx.securityScopes` from the first `requireScopes` on.
 *
 * @typeParam TKey - the ctx key it sets (`'token'` or `'authorization'`).
 * @typeParam TScope - the scope names its scheme declares.
 * @typeParam TAutoError - whether it refuses unauthenticated requests.
 * @example
 * ```ts
 * const auth: SecurityReader<'token', 'me' | 'items', true> = oauth2PasswordBearer({
 *   tokenUrl: 'token',
 *   scopes: { me: 'Read me', items: 'Read items' },
 * });
 * ```
 */
export interface SecurityReader<TKey extends string, TScope extends string, TAutoError extends boolean> {
  (opts: MiddlewareOptions<object>): Promise<MiddlewareResult<{ [K in TKey]: ReadValue<TAutoError> }>>;
  /** The scheme's name in the OpenAPI document. */
  readonly schemeName: string;
  /** The OpenAPI Security Scheme Object (`type: 'oauth2'` with its flows). */
  readonly securityScheme: OAuth2SecurityScheme;
  readonly autoError: TAutoError;
  /** The error thrown for an unauthenticated request (the `makeNotAuthenticatedError` option). */
  makeNotAuthenticatedError(): TRPCError;
  /**
   * A middleware that requires scopes of this scheme: they accumulate on `ctx.securityScopes`
   * and in the operation's OpenAPI security requirement. Undeclared names fail to compile and,
   * from plain JavaScript, throw when the procedure is defined.
   *
   * `$Ctx` is inferred from the `.use()` call it is written in: that is how the scopes required
   * earlier in the chain join the union. Leave it to inference.
   */
  requireScopes<const $Required extends TScope, $Ctx = unknown>(
    ...scopes: ScopeArguments<TScope, $Required>
  ): ScopesMiddleware<$Required, $Ctx>;
  /**
   * The reader and `requireScopes(...scopes)` in one middleware (FastAPI's
   * `Security(scheme, scopes=[...])`): puts `ctx[TKey]` on ctx and accumulates the scopes, in a
   * single tRPC step, which is cheaper per request than `.use(reader).use(reader.requireScopes(…))`.
   *
   * @example
   * ```ts
   * const items = t.procedure.use(auth.withScopes('me', 'items')); // ctx.token, ctx.securityScopes
   * ```
   */
  withScopes<const $Required extends TScope, $Ctx = unknown>(
    ...scopes: ScopeArguments<TScope, $Required>
  ): ReaderWithScopes<TKey, TAutoError, $Required, $Ctx>;
  /**
   * The reader as a procedure builder, for `.concat()`: `t.procedure.concat(reader.procedure)`.
   */
  readonly procedure: TRPCProcedureBuilder<
    object,
    object,
    { [K in TKey]: ReadValue<TAutoError> },
    TRPCUnsetMarker,
    TRPCUnsetMarker,
    TRPCUnsetMarker,
    TRPCUnsetMarker,
    false
  >;
  readonly [SECURITY]: SecurityDeclaration;
}

/**
 * A reader and the scopes it requires, as one middleware (`reader.withScopes(...)`).
 *
 * @example
 * ```ts
 * const mw: ReaderWithScopes<'token', true, 'me', unknown> = auth.withScopes('me');
 * ```
 */
export interface ReaderWithScopes<TKey extends string, TAutoError extends boolean, TRequired extends string, TCtx> {
  (
    opts: MiddlewareOptions<TCtx>,
  ): Promise<
    MiddlewareResult<{ [K in TKey]: ReadValue<TAutoError> } & { securityScopes: SecurityScopes<ScopesOf<TCtx> | TRequired> }>
  >;
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

/** Assembles a reader from its definition and the user's options. */
export function createSecurityReader<$Key extends string, $Scope extends string, $AutoError extends boolean>(
  definition: ReaderDefinition<$Key>,
  options: SecurityReaderOptions<$AutoError>,
): SecurityReader<$Key, $Scope, $AutoError> {
  const { key, extract, declaredScopes } = definition;
  const autoError = options.autoError ?? true;
  const getHeaders = options.getHeaders ?? headersFromContext;
  const makeNotAuthenticatedError = options.makeNotAuthenticatedError ?? definition.defaultNotAuthenticatedError;
  const schemeName = options.schemeName ?? definition.defaultSchemeName;
  const securityScheme: OAuth2SecurityScheme = Object.freeze(
    options.description === undefined ? definition.scheme : { ...definition.scheme, description: options.description },
  );
  for (const scope of declaredScopes) assertScopeName(scope, undefined);

  const read = (ctx: unknown) => {
    const value = extract(readHeader(getHeaders(ctx), 'authorization'));
    if (value === null && autoError) throw makeNotAuthenticatedError();
    return value;
  };
  const checkedScopes = (scopes: string[], method: string) => {
    if (scopes.length === 0) throw new TypeError(`${method} needs at least one scope`);
    for (const scope of scopes) assertScopeName(scope, declaredScopes);
    return Object.freeze([...scopes]);
  };
  const reader = (opts: MiddlewareOptions<{ securityScopes?: SecurityScopes }>) =>
    opts.next({ ctx: { [key]: read(opts.ctx), securityScopes: opts.ctx.securityScopes ?? NO_SCOPES } });
  let procedure: unknown;
  return Object.assign(reader, {
    schemeName,
    securityScheme,
    autoError,
    makeNotAuthenticatedError,
    requireScopes(...scopes: string[]) {
      return scopesMiddleware({ schemeName, scheme: securityScheme, scopes: checkedScopes(scopes, 'requireScopes') });
    },
    withScopes(...scopes: string[]) {
      const declared = checkedScopes(scopes, 'withScopes');
      const required = requiredScopesOf(declared);
      // One tRPC step instead of two: each `.use()` step costs more than the reading itself.
      const readerWithScopes = (opts: MiddlewareOptions<{ securityScopes?: SecurityScopes }>) => {
        const value = read(opts.ctx);
        return opts.next({ ctx: { [key]: value, securityScopes: required(opts.ctx) } });
      };
      return Object.assign(readerWithScopes, {
        makeNotAuthenticatedError,
        [SECURITY]: Object.freeze({ schemeName, scheme: securityScheme, scopes: declared, optional: !autoError }),
      });
    },
    get procedure() {
      // Built on first use: most applications `.use()` the reader and never need a builder.
      return (procedure ??= initTRPC.create().procedure.use(reader as never));
    },
    [SECURITY]: Object.freeze({ schemeName, scheme: securityScheme, scopes: Object.freeze([]), optional: !autoError }),
  }) as never;
}
