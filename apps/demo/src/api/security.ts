import { anyOf, oauth2AuthorizationCodeBearer, oauth2PasswordBearer, type VerifyOptions } from '@trpc-oauth2/core';
import type { DPoPNonces, DPoPProofVerifier, DPoPRequest } from '@trpc-oauth2/core/dpop';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import type { JwtPrincipal } from '@trpc-oauth2/jwt';
import type { AccessTokenPrincipal } from '../auth/access-tokens.js';
import { DPOP_ALGORITHMS } from '../auth/dpop.js';
import { DEMO_SCOPES } from '../auth/scopes.js';
import type { User } from '../store/users.js';
import { t, type DemoContext, type Services } from './trpc.js';

/**
 * The REST path of the token endpoint, as Swagger UI calls it.
 *
 * @example
 * ```ts
 * fetch(new URL(TOKEN_URL, 'http://127.0.0.1:3000'), { method: 'POST', body: form });
 * ```
 */
export const TOKEN_URL = '/api/token';

/** How often a running subscription's token is verified again (its user may have been removed). */
const RECHECK_INTERVAL_MS = 30_000;

/**
 * The demo's principal: the verified access token and the user it was issued to, whichever
 * way the token came (the password flow's, or the authorization server's).
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
 * The principal of a token of the authorization server: its claims, and the user it names.
 *
 * @example
 * ```ts
 * const who = (principal: AuthorizationServerPrincipal) => principal.user.username;
 * ```
 */
export interface AuthorizationServerPrincipal extends JwtPrincipal {
  readonly user: User;
}

/**
 * The user a verified token names, who must still exist: a token whose user was deleted is refused
 * with 401 `invalid_token`, wherever the token is read (the API's readers, the MCP endpoint).
 *
 * @example
 * ```ts
 * const user = await userOf(services, principal.subject);
 * ```
 */
export const userOf = async (services: Pick<Services, 'users'>, subject: string): Promise<User> => {
  const user = await services.users.find(subject);
  if (user === null) throw invalidTokenError('The user of this token no longer exists');
  return user;
};

/** The options a reader gives the demo's verifiers: the server's services are on ctx. */
type DemoVerifyOptions = VerifyOptions<Pick<DemoContext, 'services'>>;

/**
 * The password flow's verifier: the `jwtVerifier` of the server that answers the request (its own
 * signing key, issuer and audience), then the user it names, who must still exist.
 */
const verifyAccessToken = async (token: string, options?: DemoVerifyOptions): Promise<DemoPrincipal> => {
  const { services } = options!.ctx;
  const principal = await services.accessTokens.verify(token, options);
  return { ...principal, user: await userOf(services, principal.subject) };
};

/**
 * The authorization server's verifier: `jwtVerifier` on its key set (`/oidc/jwks`), pinned to
 * its issuer, the API's audience, ES256 and `typ: at+jwt`; then the user it names.
 */
const verifyAuthorizationServerToken = async (token: string, options?: DemoVerifyOptions): Promise<AuthorizationServerPrincipal> => {
  const { services } = options!.ctx;
  const principal = await services.authorizationServerTokens(token, options);
  return { ...principal, user: await userOf(services, principal.subject) };
};

/** Why {@link SERVER_NONCES} issues and checks nothing itself. */
const NONCES_ARE_THE_SERVERS = "The API's DPoP nonces are each server's (ctx.services.dpop.nonces): this module has none of its own";

/**
 * The `nonces` of the API's proof checker as the readers see it: that it asks for nonces (RFC 9449
 * §9), which is what the OpenAPI document is written from (`use_dpop_nonce` and the `DPoP-Nonce`
 * header in every protected operation's 401). The nonces themselves are the checker's of the
 * server that answers (`loadDPoP`, from the secret every instance on one data directory shares);
 * a module has no server to ask, so these issue and check none, rather than make them from a
 * second secret no server would accept. Nothing calls them: each request's proof, nonce and all,
 * is checked by the server's own checker.
 */
const SERVER_NONCES: DPoPNonces = {
  current: () => Promise.reject(new Error(NONCES_ARE_THE_SERVERS)),
  check: () => Promise.reject(new Error(NONCES_ARE_THE_SERVERS)),
};

/**
 * The API's DPoP proof checker: the one of the server that answers (`ctx.services.dpop`), whose
 * replay store is its database, shared by every instance on one PostgreSQL server, and whose
 * nonces are required. The readers are defined once for the module, the servers (and their
 * stores) when each starts.
 */
const resourceProofs: DPoPProofVerifier = Object.assign(
  (request: DPoPRequest) => (request.ctx as Pick<DemoContext, 'services'>).services.dpop.resourceProofs(request),
  { algorithms: DPOP_ALGORITHMS, nonces: SERVER_NONCES },
);

/**
 * How the API reads DPoP (RFC 9449): DPoP-bound tokens of either way in, with a proof of the key
 * they are bound to, beside plain bearer tokens; a bound token sent as `Bearer` is refused.
 *
 * @example
 * ```ts
 * const reader = oauth2PasswordBearer({ tokenUrl: TOKEN_URL, verify: verifyAccessToken, ...DPOP_READING });
 * ```
 */
export const DPOP_READING = {
  dpop: { mode: 'allowed', proofs: resourceProofs },
  // A proof names the URL the client used: the public URL (PUBLIC_URL), never the Host header.
  origin: (ctx: Pick<DemoContext, 'services'>) => ctx.services.dpop.origin,
} as const;

/**
 * The first way in: the password flow at {@link TOKEN_URL}, scopes `me` and `items`. Refreshing
 * happens at the token endpoint too (RFC 6749 §6), so that is the `refreshUrl`.
 *
 * @example
 * ```ts
 * passwordAuth.securityScheme.flows.password?.tokenUrl; // '/api/token'
 * ```
 */
export const passwordAuth = oauth2PasswordBearer({
  tokenUrl: TOKEN_URL,
  refreshUrl: TOKEN_URL,
  scopes: DEMO_SCOPES,
  schemeName: 'DemoPassword',
  description: 'Log in as alice / wonderland (scopes me, items) or bob / builder (scope me).',
  verify: verifyAccessToken,
  // A running item stream checks every half minute that its user still exists.
  recheckInterval: RECHECK_INTERVAL_MS,
  ...DPOP_READING,
});

/**
 * The second way in: the authorization-code flow with PKCE at the authorization server mounted
 * at `/oidc` (an external one such as Keycloak, Auth0 or Entra in a real deployment).
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
  description: 'Log in at the authorization server (client swagger-ui, PKCE) as alice / wonderland (scopes me, items) or bob / builder (scope me).',
  verify: verifyAuthorizationServerToken,
  recheckInterval: RECHECK_INTERVAL_MS,
  ...DPOP_READING,
});

/**
 * The demo's security reader: a token of either way in (`anyOf`), verified by its own verifier;
 * the principal and its user go on `ctx.principal`, and every `auth.requireScopes(…)` of the
 * chain is enforced on its grant (403 `insufficient_scope`). The document lists both schemes as
 * alternatives with the same scopes.
 *
 * @example
 * ```ts
 * const me = t.procedure.use(auth).use(auth.requireScopes('me')).query(({ ctx }) => ctx.principal.user);
 * ```
 */
export const auth = anyOf(passwordAuth, codeAuth);

/**
 * The one base of every protected procedure: the verified reader, `ctx.principal.user` the user.
 *
 * @example
 * ```ts
 * const me = authed.use(auth.requireScopes('me')).query(({ ctx }) => ctx.principal.user);
 * ```
 */
export const authed = t.procedure.use(auth);
