/**
 * The bearer readers, FastAPI's `OAuth2PasswordBearer` and `OAuth2AuthorizationCodeBearer`: one
 * reader that puts the bearer token on `ctx.token`, declared with the password flow or the
 * authorization-code flow. See docs/contract.md#reading-the-authorization-header.
 * @module
 */
import { authorizationSchemeParam, isScheme } from '../authorization-scheme.js';
import { bearerNotAuthenticatedError } from '../errors.js';
import type { OAuthFlows, ScopeMap } from '../security-declaration.js';
import type { Principal } from './principal.js';
import { createSecurityReader, type SecurityReader, type SecurityReaderOptions } from './security-reader.js';

/** The authentication scheme of RFC 6750 §2.1, compared case-insensitively. */
const BEARER_SCHEME = 'bearer';

/** What both bearer readers accept. */
interface BearerOptions<TScopes extends ScopeMap, TAutoError extends boolean, TPrincipal extends Principal, TManual extends boolean>
  extends SecurityReaderOptions<TAutoError, TPrincipal, TManual> {
  /** The token endpoint's URL, as the OpenAPI document (and Swagger UI) will call it. */
  tokenUrl: string;
  refreshUrl?: string | null;
  /** Scope name → description; the names `requireScopes` accepts. */
  scopes?: TScopes;
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
> extends BearerOptions<TScopes, TAutoError, TPrincipal, TManual> {}

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
> extends BearerOptions<TScopes, TAutoError, TPrincipal, TManual> {
  authorizationUrl: string;
}

/**
 * The token of a `Bearer` `Authorization` value, or `null` when the value is missing, blank or
 * of another scheme. The scheme ends at the first space and is compared case-insensitively; the
 * rest, trimmed, is the token (`"Bearer"` alone gives `""`: a verifier refuses it).
 */
export function bearerToken(authorization: string | undefined): string | null {
  if (authorization === undefined) return null;
  const [scheme, token] = authorizationSchemeParam(authorization);
  return isScheme(scheme, BEARER_SCHEME) ? token : null;
}

/** The one bearer reader: the two differ only in the flow they declare and their default scheme name. */
function bearerReader<$Scopes extends ScopeMap, $AutoError extends boolean, $Principal extends Principal, $Manual extends boolean>(
  flow: 'password' | 'authorizationCode',
  defaultSchemeName: string,
  urls: { authorizationUrl?: string },
  options: BearerOptions<$Scopes, $AutoError, $Principal, $Manual>,
): SecurityReader<'token', keyof $Scopes & string, $AutoError, $Principal, $Manual> {
  const scopes: ScopeMap = options.scopes ?? {};
  const refreshUrl = options.refreshUrl == null ? {} : { refreshUrl: options.refreshUrl };
  const flows = { [flow]: { ...urls, tokenUrl: options.tokenUrl, ...refreshUrl, scopes } } as OAuthFlows;
  return createSecurityReader(
    {
      key: 'token',
      scheme: { type: 'oauth2', flows },
      defaultSchemeName,
      declaredScopes: Object.keys(scopes),
      extract: bearerToken,
      defaultNotAuthenticatedError: bearerNotAuthenticatedError,
    },
    options,
  );
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
>(options: OAuth2PasswordBearerOptions<$Scopes, $AutoError, $Principal, $Manual>): SecurityReader<'token', keyof $Scopes & string, $AutoError, $Principal, $Manual> {
  return bearerReader('password', 'OAuth2PasswordBearer', {}, options);
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
>(options: OAuth2AuthorizationCodeBearerOptions<$Scopes, $AutoError, $Principal, $Manual>): SecurityReader<'token', keyof $Scopes & string, $AutoError, $Principal, $Manual> {
  return bearerReader('authorizationCode', 'OAuth2AuthorizationCodeBearer', { authorizationUrl: options.authorizationUrl }, options);
}
