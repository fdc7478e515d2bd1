import { bearerNotAuthenticatedError, bearerToken } from './bearer-token.js';
import type { ScopeMap } from './oauth-flows.js';
import { createSecurityReader, type SecurityReader, type SecurityReaderOptions } from './security-reader.js';

/**
 * Options of the authorization-code bearer reader.
 *
 * @example
 * ```ts
 * const options: OAuth2AuthorizationCodeBearerOptions<{}, true> = { authorizationUrl: 'authorize', tokenUrl: 'token' };
 * ```
 */
export interface OAuth2AuthorizationCodeBearerOptions<$Scopes extends ScopeMap, $AutoError extends boolean>
  extends SecurityReaderOptions<$AutoError> {
  authorizationUrl: string;
  tokenUrl: string;
  refreshUrl?: string | null;
  /** Scope name → description; the names `requireScopes` accepts. */
  scopes?: $Scopes;
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
 * });
 * const me = t.procedure.use(auth).use(auth.requireScopes('me')).query(({ ctx }) => ctx.token);
 * ```
 */
export function oauth2AuthorizationCodeBearer<const $Scopes extends ScopeMap = {}, $AutoError extends boolean = true>(
  options: OAuth2AuthorizationCodeBearerOptions<$Scopes, $AutoError>,
): SecurityReader<'token', keyof $Scopes & string, $AutoError> {
  const scopes: ScopeMap = options.scopes ?? {};
  return createSecurityReader(
    {
      key: 'token',
      scheme: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: options.authorizationUrl,
            tokenUrl: options.tokenUrl,
            ...(options.refreshUrl == null ? {} : { refreshUrl: options.refreshUrl }),
            scopes,
          },
        },
      },
      defaultSchemeName: 'OAuth2AuthorizationCodeBearer',
      declaredScopes: Object.keys(scopes),
      extract: bearerToken,
      defaultNotAuthenticatedError: bearerNotAuthenticatedError,
    },
    options,
  );
}
