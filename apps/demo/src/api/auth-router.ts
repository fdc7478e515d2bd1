import { revocationEndpoint, tokenEndpoint } from '@trpc-oauth2/core/token-endpoint';
import { authenticateClient } from '../auth/clients.js';
import { MAX_TOKEN_REQUEST_BYTES } from '../auth/token-endpoint/request-limit.js';
import { t } from './trpc.js';

/** The 429 of the login throttle, beside the RFC 6749 responses the library documents. */
const THROTTLED = {
  429: 'Too many failed logins for this username, failed logins and wrong client secrets from this address, or more logins than this account or address may have checked (`slow_down`, with Retry-After)',
};

/**
 * The token endpoint's procedures, built with core's `tokenEndpoint` and `revocationEndpoint`.
 * `token` serves the password grant (a request without `grant_type` is one) and the refresh grant
 * (RFC 6749 §6, rotating); `revoke` revokes a refresh token's whole family (RFC 7009). Over REST
 * they are `POST /api/token` and `POST /api/revoke`; on every face they answer with
 * `Cache-Control: no-store`. A request with a DPoP proof (RFC 9449) gets a DPoP-bound access token
 * and a refresh token bound to the same key. Failed logins are throttled per username and per client address:
 * past the limit, `token` answers 429 `slow_down` with `Retry-After`.
 *
 * @example
 * ```ts
 * const tokens = await client.auth.token.mutate({ username: 'alice', password: 'wonderland', scope: 'me items' });
 * const next = await client.auth.token.mutate({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
 * await client.auth.revoke.mutate({ token: next.refresh_token! });
 * ```
 */
export const authRouter = t.router({
  token: tokenEndpoint(
    t.procedure.meta({
      openapi: {
        method: 'POST',
        path: '/token',
        tags: ['auth'],
        summary: 'Log in (password grant) or refresh (refresh_token grant)',
        description: 'RFC 6749 §4.3 and §6. Client credentials may come as HTTP Basic or as the form fields; refresh tokens rotate on use.',
        errorResponses: THROTTLED,
      },
    }),
    {
      // The password grant's client check runs inside `around`, counted with the password; the
      // other grants count wrong client secrets on their own.
      authenticateClient: (credentials, { ctx, grantType }) =>
        grantType === 'password' ? authenticateClient(credentials) : ctx.services.tokens.authenticateClient(credentials, ctx.clientAddress),
      defaultGrantType: 'password',
      maxBodySize: MAX_TOKEN_REQUEST_BYTES,
      around: ({ grantType, form, ctx }, next) => ctx.services.tokens.throttled(grantType, form, ctx.clientAddress, next),
      // A request with a DPoP proof gets tokens bound to its key (RFC 9449 §5), after a nonce round trip.
      dpop: ({ services }) => ({ proofs: services.dpop.tokenProofs, origin: services.dpop.origin }),
    },
  )
    .grant('password', ({ ctx, form, client, dpop }) => ctx.services.tokens.passwordGrant(form, client, ctx.req, dpop))
    .grant('refresh_token', ({ ctx, form, client, dpop }) => ctx.services.tokens.refreshGrant(form, client, dpop))
    .build(),
  revoke: revocationEndpoint(
    t.procedure.meta({
      openapi: { method: 'POST', path: '/revoke', tags: ['auth'], summary: 'Log out: revoke a refresh token (RFC 7009)', errorResponses: THROTTLED },
    }),
    {
      authenticateClient: (credentials, { ctx }) => ctx.services.tokens.authenticateClient(credentials, ctx.clientAddress),
      tokenTypes: ['refresh_token'],
      maxBodySize: MAX_TOKEN_REQUEST_BYTES,
      revoke: ({ ctx, form, client }) => ctx.services.tokens.revoke(form.token, client),
    },
  ),
});
