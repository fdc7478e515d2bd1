import { bearerNotAuthenticatedError, bearerToken } from './bearer-token.js';
import type { ScopeMap } from './oauth-flows.js';
import { createSecurityReader, type SecurityReader, type SecurityReaderOptions } from './security-reader.js';

/**
 * Options of the password-flow bearer reader.
 *
 * @example
 * ```ts
 * const options: OAuth2PasswordBearerOptions<{ me: string }, true> = { tokenUrl: 'token', scopes: { me: 'Read me' } };
 * ```
 */
export interface OAuth2PasswordBearerOptions<$Scopes extends ScopeMap, $AutoError extends boolean>
  extends SecurityReaderOptions<$AutoError> {
  /** The token endpoint's URL, as the OpenAPI document (and Swagger UI) will call it. */
  tokenUrl: string;
  refreshUrl?: string | null;
  /** Scope name → description; the names `requireScopes` accepts. */
  scopes?: $Scopes;
}

/**
 * The password-flow bearer reader (FastAPI's `OAuth2PasswordBearer`): puts the bearer token on
 * `ctx.token`. Missing, blank or not `Bearer` → 401 "Not authenticated" with
 * `WWW-Authenticate: Bearer` (or `null` with `autoError: false`). It does not validate the token.
 *
 * @example
 * ```ts
 * const auth = oauth2PasswordBearer({ tokenUrl: 'token', scopes: { me: 'Read me', items: 'Read items' } });
 * const authed = t.procedure.use(auth);                      // ctx.token: string
 * const items = authed.use(auth.requireScopes('me', 'items')); // ctx.securityScopes.scopes: ('me' | 'items')[]
 * ```
 */
export function oauth2PasswordBearer<const $Scopes extends ScopeMap = {}, $AutoError extends boolean = true>(
  options: OAuth2PasswordBearerOptions<$Scopes, $AutoError>,
): SecurityReader<'token', keyof $Scopes & string, $AutoError> {
  const scopes: ScopeMap = options.scopes ?? {};
  return createSecurityReader(
    {
      key: 'token',
      scheme: {
        type: 'oauth2',
        flows: {
          password: {
            tokenUrl: options.tokenUrl,
            ...(options.refreshUrl == null ? {} : { refreshUrl: options.refreshUrl }),
            scopes,
          },
        },
      },
      defaultSchemeName: 'OAuth2PasswordBearer',
      declaredScopes: Object.keys(scopes),
      extract: bearerToken,
      defaultNotAuthenticatedError: bearerNotAuthenticatedError,
    },
    options,
  );
}
