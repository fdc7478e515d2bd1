import { invalidTokenError, oauth2AuthorizationCodeBearer, oauth2PasswordBearer } from '@trpc-oauth2/core';
import { decodeJwt } from 'jose';
import { DEMO_SCOPES } from '../auth/scopes.js';
import { t } from './trpc.js';

/**
 * The REST path of the token endpoint, as Swagger UI calls it.
 *
 * @example
 * ```ts
 * fetch(new URL(TOKEN_URL, 'http://127.0.0.1:3000'), { method: 'POST', body: form });
 * ```
 */
export const TOKEN_URL = '/api/token';

/**
 * The demo's own way in: the password flow at {@link TOKEN_URL}, scopes `me` and `items`.
 * Refreshing happens at the token endpoint too (RFC 6749 §6), so that is the `refreshUrl`.
 *
 * @example
 * ```ts
 * const authed = t.procedure.use(auth);
 * ```
 */
export const auth = oauth2PasswordBearer({
  tokenUrl: TOKEN_URL,
  refreshUrl: TOKEN_URL,
  scopes: DEMO_SCOPES,
  schemeName: 'DemoPassword',
  description: 'Log in as alice / wonderland (scopes me, items) or bob / builder (scope me).',
});

/**
 * The other way in: the authorization-code flow with PKCE at the authorization server mounted
 * at `/oidc` (an external one such as Keycloak, Auth0 or Entra in a real deployment), whose JWT
 * access tokens are verified against its key set.
 *
 * @example
 * ```ts
 * codeAuth.securityScheme.flows.authorizationCode?.authorizationUrl; // '/oidc/auth'
 * ```
 */
export const codeAuth = oauth2AuthorizationCodeBearer({
  authorizationUrl: '/oidc/auth',
  tokenUrl: '/oidc/token',
  refreshUrl: '/oidc/token',
  scopes: DEMO_SCOPES,
  schemeName: 'DemoAuthorizationCode',
  description:
    'Log in at the authorization server (PKCE, client swagger-ui) as alice / wonderland (scopes me, items) or bob / builder (scope me).',
});

/**
 * The one base of every protected procedure: reads the bearer token, verifies it (a token of
 * the demo's token endpoint with its own key, one of the authorization server with its key
 * set), loads its user, and puts `ctx.user` and `ctx.grantedScopes` on ctx. Every
 * `auth.requireScopes(…)` chained after it is then enforced by core (403 `insufficient_scope`).
 *
 * @example
 * ```ts
 * const me = authed.use(auth.requireScopes('me')).query(({ ctx }) => ctx.user);
 * ```
 */
export const authed = t.procedure.use(auth).use(codeAuth).use(async ({ ctx, next, signal }) => {
  const { services } = ctx;
  let issuer: unknown;
  try {
    issuer = decodeJwt(ctx.token).iss;
  } catch {
    throw invalidTokenError('The access token is invalid');
  }
  const claims =
    issuer === services.authorizationServerIssuer
      ? await services.authorizationServerTokens(ctx.token, { signal }).then((principal) => ({ sub: principal.subject, scopes: [...principal.scopes] }))
      : await services.accessTokens.verify(ctx.token);
  const user = await services.users.find(claims.sub);
  if (user === null) throw invalidTokenError('The user of this token no longer exists');
  return next({ ctx: { user, grantedScopes: new Set(claims.scopes) } });
});
