import { invalidTokenError, oauth2PasswordBearer } from '@trpc-oauth2/core';
import { TOKEN_REFUSALS, type TokenVerifier } from '@trpc-oauth2/jwt';
import { decodeProtectedHeader } from 'jose';
import type { AccessTokenPrincipal } from '../auth/access-tokens.js';
import { DEMO_SCOPES } from '../auth/scopes.js';
import type { User } from '../store/users.js';
import { t, type Services } from './trpc.js';

/**
 * The REST path of the token endpoint, as Swagger UI calls it.
 *
 * @example
 * ```ts
 * fetch(new URL(TOKEN_URL, 'http://127.0.0.1:3000'), { method: 'POST', body: form });
 * ```
 */
export const TOKEN_URL = '/api/token';

/** The services of each running server, by the key id of the access tokens it issues. */
const servedKeys = new Map<string, Services>();

/**
 * Makes the access tokens of `services` verifiable by {@link auth} (`start()` calls it), until
 * the returned function is called. Each server signs with its own key, so the key id of a token
 * (its `kid` header) names the server whose verifier and users it belongs to.
 *
 * @example
 * ```ts
 * const stopServing = serveAccessTokens(services);
 * ```
 */
export function serveAccessTokens(services: Services): () => void {
  const { kid } = services.accessTokens;
  servedKeys.set(kid, services);
  return () => {
    if (servedKeys.get(kid) === services) servedKeys.delete(kid);
  };
}

/**
 * The demo's principal: the verified access token and the user it was issued to.
 *
 * @example
 * ```ts
 * const me = authed.query(({ ctx }) => ctx.principal.user.username);
 * ```
 */
export interface DemoPrincipal extends AccessTokenPrincipal {
  readonly user: User;
}

/**
 * The reader's verifier: `jwtVerifier` of the server that issued the token (found by its key
 * id; an unknown or missing one is refused), then the user it names, who must still exist.
 */
const verifyAccessToken: TokenVerifier<DemoPrincipal> = async (token, options) => {
  let kid: unknown;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw invalidTokenError(TOKEN_REFUSALS.invalid);
  }
  const services = typeof kid === 'string' ? servedKeys.get(kid) : undefined;
  if (services === undefined) throw invalidTokenError(TOKEN_REFUSALS.unknownKey);
  const principal = await services.accessTokens.verify(token, options);
  const user = await services.users.find(principal.subject);
  if (user === null) throw invalidTokenError('The user of this token no longer exists');
  return { ...principal, user };
};

/**
 * The demo's security reader: the password flow at {@link TOKEN_URL}, scopes `me` and `items`.
 * Refreshing happens at the token endpoint too (RFC 6749 §6), so that is the `refreshUrl`. It
 * verifies the JWT (`@trpc-oauth2/jwt`'s `jwtVerifier`), loads its user, puts both on
 * `ctx.principal`, and enforces every `auth.requireScopes(…)` of the chain (403 `insufficient_scope`).
 *
 * @example
 * ```ts
 * const me = t.procedure.use(auth).use(auth.requireScopes('me')).query(({ ctx }) => ctx.principal.user);
 * ```
 */
export const auth = oauth2PasswordBearer({
  tokenUrl: TOKEN_URL,
  refreshUrl: TOKEN_URL,
  scopes: DEMO_SCOPES,
  schemeName: 'DemoPassword',
  description: 'Log in as alice / wonderland (scopes me, items) or bob / builder (scope me).',
  verify: verifyAccessToken,
});

/**
 * The one base of every protected procedure: the verified reader, `ctx.principal.user` the user.
 *
 * @example
 * ```ts
 * const me = authed.use(auth.requireScopes('me')).query(({ ctx }) => ctx.principal.user);
 * ```
 */
export const authed = t.procedure.use(auth);
