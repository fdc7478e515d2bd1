/**
 * Scope name → human description, as OpenAPI's OAuth flow objects declare them.
 *
 * @example
 * ```ts
 * const scopes: ScopeMap = { me: 'Read your profile', items: 'Read your items' };
 * ```
 */
export type ScopeMap = Readonly<Record<string, string>>;

/**
 * OpenAPI 3.1 OAuth Flows Object: the flows a security scheme supports.
 *
 * @example
 * ```ts
 * const flows: OAuthFlows = {
 *   password: { tokenUrl: '/token', scopes: { me: 'Read your profile' } },
 *   authorizationCode: { authorizationUrl: '/authorize', tokenUrl: '/token', scopes: {} },
 * };
 * ```
 */
export interface OAuthFlows {
  implicit?: { authorizationUrl: string; refreshUrl?: string; scopes: ScopeMap };
  password?: { tokenUrl: string; refreshUrl?: string; scopes: ScopeMap };
  clientCredentials?: { tokenUrl: string; refreshUrl?: string; scopes: ScopeMap };
  authorizationCode?: { authorizationUrl: string; tokenUrl: string; refreshUrl?: string; scopes: ScopeMap };
}

/**
 * The scope names declared by any flow of an {@link OAuthFlows}, as a union.
 *
 * @example
 * ```ts
 * type S = FlowScopes<{ password: { tokenUrl: 't'; scopes: { me: '' } } }>; // 'me'
 * ```
 */
export type FlowScopes<$Flows> = {
  [K in keyof $Flows]-?: $Flows[K] extends { scopes: infer $Map } ? keyof $Map & string : never;
}[keyof $Flows];

/**
 * OpenAPI 3.1 Security Scheme Object of type `oauth2`.
 *
 * @example
 * ```ts
 * const scheme: OAuth2SecurityScheme = { type: 'oauth2', flows: { password: { tokenUrl: 'token', scopes: {} } } };
 * ```
 */
export interface OAuth2SecurityScheme {
  type: 'oauth2';
  description?: string;
  flows: OAuthFlows;
}
