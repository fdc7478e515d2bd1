/**
 * The bearer readers, FastAPI's `OAuth2PasswordBearer` and `OAuth2AuthorizationCodeBearer`: one
 * reader that puts the bearer token on `ctx.token`, declared with the password flow or the
 * authorization-code flow. See docs/contract.md#reading-the-authorization-header.
 * @module
 */
import { authorizationSchemeParam, isScheme } from '../authorization-scheme.js';
import { bearerNotAuthenticatedError } from '../errors.js';
import type { FlowScopes, OAuthFlows, ScopeMap } from '../security-declaration.js';
import type { ScopeImplications } from '../scope-hierarchy.js';
import type { Principal } from './principal.js';
import type { OAuth2Options } from './oauth2.js';
import type { ReaderDPoPOptions } from '../dpop/reader-dpop.js';
import type { TypeError } from '../type-error.js';
import { createSecurityReader, type NeededContext, type SecurityReader, type SecurityReaderOptions } from './security-reader.js';

/** The authentication scheme of RFC 6750 §2.1, compared case-insensitively. */
const BEARER_SCHEME = 'bearer';
const CANONICAL_PREFIX = 'Bearer ';

/** What both bearer readers accept. */
interface BearerOptions<TScopes extends ScopeMap, TAutoError extends boolean, TPrincipal extends Principal, TManual extends boolean, TCtx, TOriginCtx, THeadersCtx>
  extends SecurityReaderOptions<TAutoError, TPrincipal, TManual, TCtx, TOriginCtx, THeadersCtx> {
  /** The token endpoint's URL, as the OpenAPI document (and Swagger UI) will call it. */
  tokenUrl: string;
  refreshUrl?: string | null;
  /** Scope name → description; the names `requireScopes` accepts. */
  scopes?: TScopes;
  /**
   * Accept DPoP-bound tokens (RFC 9449): `Authorization: DPoP <token>` with a `DPoP` proof,
   * checked on every request, the token's `cnf.jkt` equal to the proof key's thumbprint. Needs
   * `verify` and `origin`. See docs/contract.md#dpop.
   */
  dpop?: ReaderDPoPOptions;
  /** What each declared scope implies (docs/contract.md#scope-hierarchy). */
  implies?: ScopeImplications<keyof TScopes & string>;
}

/**
 * Options of the password-flow bearer reader.
 *
 * @example
 * ```ts
 * const options: OAuth2PasswordBearerOptions<{ me: string }, true> = { tokenUrl: 'token', scopes: { me: 'Read me' } };
 * ```
 */
export interface OAuth2PasswordBearerOptions<
  TScopes extends ScopeMap,
  TAutoError extends boolean,
  TPrincipal extends Principal = never,
  TManual extends boolean = false,
  TCtx = any,
  TOriginCtx = any,
  THeadersCtx = any,
> extends BearerOptions<TScopes, TAutoError, TPrincipal, TManual, TCtx, TOriginCtx, THeadersCtx> {}

/**
 * Options of the authorization-code bearer reader.
 *
 * @example
 * ```ts
 * const options: OAuth2AuthorizationCodeBearerOptions<{}, true> = { authorizationUrl: 'authorize', tokenUrl: 'token' };
 * ```
 */
export interface OAuth2AuthorizationCodeBearerOptions<
  TScopes extends ScopeMap,
  TAutoError extends boolean,
  TPrincipal extends Principal = never,
  TManual extends boolean = false,
  TCtx = any,
  TOriginCtx = any,
  THeadersCtx = any,
> extends BearerOptions<TScopes, TAutoError, TPrincipal, TManual, TCtx, TOriginCtx, THeadersCtx> {
  authorizationUrl: string;
}

/** The options whose presence {@link DPoPNeeds} checks. */
type DPoPMember = 'dpop' | 'verify' | 'origin';

/**
 * Makes `dpop` without `verify` or `origin` a compile error, as it is an error when the reader is
 * created (docs/contract.md#dpop): `dpop` then has a type that only the missing option's message
 * satisfies, which is what the compiler shows (or `undefined`: `dpop: undefined` turns DPoP off).
 *
 * `TGiven` is inferred, through the mapped type, as the names of the options given. Names, not
 * types: a `verify` written inline is typed only in inference's second round, and a check that
 * fails in the first is reported with what that round inferred. For that reason a missing `origin`
 * also waits for `TPrincipal`, `never` until `verify` is typed: else an inline `verify` would be
 * reported too, as not returning `never`. The mapped type names only the three options, so that it
 * makes no misspelt option known. Options of a declared type, whose members are optional, name all
 * three and pass: only a definition known to lack one fails.
 */
type DPoPNeeds<TGiven extends string, TPrincipal extends Principal> = { [K in TGiven & DPoPMember]?: unknown } & (Lacks<TGiven, 'dpop'> extends true
  ? unknown
  : Lacks<TGiven, 'verify'> extends true
    ? { dpop?: TypeError<"dpop needs `verify`: a token's binding (cnf.jkt) is read from its principal"> }
    : Lacks<TGiven, 'origin'> extends true
      ? [TPrincipal] extends [never]
        ? unknown
        : { dpop?: TypeError<'dpop needs `origin`: a proof names the URL the client used, which the Host header alone does not say'> }
      : unknown);

/** Whether `TMember` is not among the options given. */
type Lacks<TGiven extends string, TMember extends DPoPMember> = TMember extends TGiven ? false : true;

/**
 * The token of a `Bearer` `Authorization` value, or `null` when the value is missing, blank or
 * of another scheme. The scheme ends at the first space and is compared case-insensitively; the
 * rest, trimmed, is the token (`"Bearer"` alone gives `""`: a verifier refuses it).
 */
export function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  // The spelling nearly every client sends, read without taking the value apart.
  if (authorization.startsWith(CANONICAL_PREFIX)) return authorization.slice(CANONICAL_PREFIX.length).trim();
  const [scheme, token] = authorizationSchemeParam(authorization);
  return isScheme(scheme, BEARER_SCHEME) ? token : null;
}

/** The one bearer reader: they differ only in the flows they declare and their default scheme name. */
function bearerReader<$Scope extends string, $AutoError extends boolean, $Principal extends Principal, $Manual extends boolean, $Ctx, $OriginCtx, $HeadersCtx>(
  flows: OAuthFlows,
  defaultSchemeName: string,
  options: SecurityReaderOptions<$AutoError, $Principal, $Manual, $Ctx, $OriginCtx, $HeadersCtx>,
): SecurityReader<'token', $Scope, $AutoError, $Principal, $Manual, NeededContext<$Ctx, $OriginCtx, $HeadersCtx>> {
  // Every flow's scopes, once: a token of any of them is read the same way.
  const declaredScopes = [...new Set(Object.values(flows).flatMap((flow) => Object.keys((flow as { scopes?: ScopeMap } | undefined)?.scopes ?? {})))];
  return createSecurityReader(
    {
      key: 'token',
      scheme: { type: 'oauth2', flows },
      defaultSchemeName,
      declaredScopes,
      extract: bearerToken,
      defaultNotAuthenticatedError: bearerNotAuthenticatedError,
    },
    options,
  );
}

/** The flows object of a one-flow bearer reader. */
function oneFlow(flow: 'password' | 'authorizationCode', urls: { authorizationUrl?: string }, options: BearerOptions<ScopeMap, boolean, Principal, boolean, any, any, any>): OAuthFlows {
  const refreshUrl = options.refreshUrl == null ? {} : { refreshUrl: options.refreshUrl };
  return { [flow]: { ...urls, tokenUrl: options.tokenUrl, ...refreshUrl, scopes: options.scopes ?? {} } } as OAuthFlows;
}

/**
 * Options of the bearer reader for any flows.
 *
 * @example
 * ```ts
 * const options: OAuth2BearerOptions<{ clientCredentials: { tokenUrl: '/token'; scopes: { 'jobs:run': 'Run jobs' } } }, true> = {
 *   flows: { clientCredentials: { tokenUrl: '/token', scopes: { 'jobs:run': 'Run jobs' } } },
 * };
 * ```
 */
export interface OAuth2BearerOptions<
  TFlows extends OAuthFlows,
  TAutoError extends boolean,
  TPrincipal extends Principal = never,
  TManual extends boolean = false,
  TCtx = any,
  TOriginCtx = any,
  THeadersCtx = any,
> extends OAuth2Options<TFlows, TAutoError, TPrincipal, TManual, TCtx, TOriginCtx, THeadersCtx> {
  /** The flows the OpenAPI document declares (client credentials, any mix); their scopes are the declared scopes. */
  flows: TFlows;
  /** Sender-constrained tokens (RFC 9449), as for the password and code readers. See docs/contract.md#dpop. */
  dpop?: ReaderDPoPOptions;
}

/**
 * The bearer reader for any flows (a client-credentials API, or any mix of flows): reads the
 * bearer token exactly as `oauth2PasswordBearer` does and puts it on `ctx.token` (never the
 * whole `Authorization` value, as the base `oauth2` reader does), declares `flows` in the
 * OpenAPI document, and with `verify` verifies the token and enforces the chain's scopes.
 *
 * @example
 * ```ts
 * const service = oauth2Bearer({
 *   flows: { clientCredentials: { tokenUrl: 'https://issuer.example/token', scopes: { 'jobs:run': 'Run jobs' } } },
 *   verify: jwtVerifier({ jwksUrl, issuer, audience, algorithms: ['ES256'] }),
 * });
 * const run = t.procedure.use(service.withScopes('jobs:run')).mutation(({ ctx }) => ctx.principal.subject);
 * ```
 */
export function oauth2Bearer<
  const $Flows extends OAuthFlows,
  $AutoError extends boolean = true,
  $Principal extends Principal = never,
  $Manual extends boolean = false,
  $Ctx = any,
  $OriginCtx = any,
  $HeadersCtx = any,
  // The names of the options given, for DPoPNeeds: left to inference.
  $Given extends string = never,
>(
  options: OAuth2BearerOptions<$Flows, $AutoError, $Principal, $Manual, $Ctx, $OriginCtx, $HeadersCtx> & DPoPNeeds<$Given, $Principal>,
): SecurityReader<'token', FlowScopes<$Flows>, $AutoError, $Principal, $Manual, NeededContext<$Ctx, $OriginCtx, $HeadersCtx>> {
  if (typeof options?.flows !== 'object' || options.flows === null) throw new TypeError('oauth2Bearer needs flows: the OAuth flows its tokens come from');
  return bearerReader(options.flows, 'OAuth2Bearer', options);
}

/**
 * The password-flow bearer reader (FastAPI's `OAuth2PasswordBearer`): puts the bearer token on
 * `ctx.token`. Missing, blank or not `Bearer` → 401 "Not authenticated" with
 * `WWW-Authenticate: Bearer` (or `null` with `autoError: false`). Given `verify`, it verifies the
 * token (401 `invalid_token` when refused), puts the principal on `ctx.principal` and enforces
 * the chain's scopes on it (403 `insufficient_scope`).
 *
 * @example
 * ```ts
 * const auth = oauth2PasswordBearer({
 *   tokenUrl: 'token',
 *   scopes: { me: 'Read me', items: 'Read items' },
 *   verify: jwtVerifier({ jwksUrl, issuer, audience, algorithms: ['ES256'] }),
 * });
 * const authed = t.procedure.use(auth);                      // ctx.token: string, ctx.principal: JwtPrincipal
 * const items = authed.use(auth.requireScopes('me', 'items')); // 403 unless the token grants both
 * ```
 */
export function oauth2PasswordBearer<
  const $Scopes extends ScopeMap = {},
  $AutoError extends boolean = true,
  $Principal extends Principal = never,
  $Manual extends boolean = false,
  $Ctx = any,
  $OriginCtx = any,
  $HeadersCtx = any,
  // The names of the options given, for DPoPNeeds: left to inference.
  $Given extends string = never,
>(
  options: OAuth2PasswordBearerOptions<$Scopes, $AutoError, $Principal, $Manual, $Ctx, $OriginCtx, $HeadersCtx> & DPoPNeeds<$Given, $Principal>,
): SecurityReader<'token', keyof $Scopes & string, $AutoError, $Principal, $Manual, NeededContext<$Ctx, $OriginCtx, $HeadersCtx>> {
  return bearerReader(oneFlow('password', {}, options as never), 'OAuth2PasswordBearer', options);
}

/**
 * The authorization-code-flow bearer reader (FastAPI's `OAuth2AuthorizationCodeBearer`): reads
 * the token exactly as `oauth2PasswordBearer` does and declares the `authorizationCode` flow.
 *
 * @example
 * ```ts
 * const auth = oauth2AuthorizationCodeBearer({
 *   authorizationUrl: 'authorize',
 *   tokenUrl: 'token',
 *   refreshUrl: 'refresh',
 *   scopes: { me: 'Read me' },
 *   verify: introspectionVerifier({ endpoint, clientId, clientSecret }),
 * });
 * const me = t.procedure.use(auth.withScopes('me')).query(({ ctx }) => ctx.principal.subject);
 * ```
 */
export function oauth2AuthorizationCodeBearer<
  const $Scopes extends ScopeMap = {},
  $AutoError extends boolean = true,
  $Principal extends Principal = never,
  $Manual extends boolean = false,
  $Ctx = any,
  $OriginCtx = any,
  $HeadersCtx = any,
  // The names of the options given, for DPoPNeeds: left to inference.
  $Given extends string = never,
>(
  options: OAuth2AuthorizationCodeBearerOptions<$Scopes, $AutoError, $Principal, $Manual, $Ctx, $OriginCtx, $HeadersCtx> & DPoPNeeds<$Given, $Principal>,
): SecurityReader<'token', keyof $Scopes & string, $AutoError, $Principal, $Manual, NeededContext<$Ctx, $OriginCtx, $HeadersCtx>> {
  return bearerReader(oneFlow('authorizationCode', { authorizationUrl: options.authorizationUrl }, options as never), 'OAuth2AuthorizationCodeBearer', options);
}
