import { invalidTokenError, oauth2PasswordBearer } from '@trpc-oauth2/core';
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
 * The demo's security reader: the password flow at {@link TOKEN_URL}, scopes `me` and `items`.
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
 * The one base of every protected procedure: reads the bearer token, verifies the JWT, loads
 * its user, and puts `ctx.user` and `ctx.grantedScopes` on ctx. Every `auth.requireScopes(…)`
 * chained after it is then enforced by core (403 `insufficient_scope`).
 *
 * @example
 * ```ts
 * const me = authed.use(auth.requireScopes('me')).query(({ ctx }) => ctx.user);
 * ```
 */
export const authed = t.procedure.use(auth).use(async ({ ctx, next }) => {
  const { services } = ctx;
  const claims = await services.accessTokens.verify(ctx.token);
  const user = await services.users.find(claims.sub);
  if (user === null) throw invalidTokenError('The user of this token no longer exists');
  return next({ ctx: { user, grantedScopes: new Set(claims.scopes) } });
});
