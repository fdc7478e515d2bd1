import { passwordRequestForm } from '@trpc-oauth2/core';
import { headersFromContext } from '@trpc-oauth2/core/protocol';
import { refreshRequestForm } from '../auth/token-endpoint/refresh-request-form.js';
import { tokenResponseSchema } from './schemas.js';
import { t } from './trpc.js';

/**
 * The token endpoint's procedures. `token` is also `POST /api/token` over REST (where a
 * `grant_type=refresh_token` body is routed to `refresh`, as RFC 6749 §6 has it); both answer
 * with `Cache-Control: no-store` on every face. Failed logins are throttled per username and per
 * client address: past the limit, `token` answers 429 `TOO_MANY_REQUESTS` with `Retry-After`.
 *
 * @example
 * ```ts
 * const tokens = await client.auth.token.mutate({ username: 'alice', password: 'wonderland', scope: 'me items' });
 * const next = await client.auth.refresh.mutate({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
 * ```
 */
export const authRouter = t.router({
  token: t.procedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/token',
        tags: ['auth'],
        summary: 'Log in: OAuth 2.0 password grant',
        description:
          'RFC 6749 §4.3. Client credentials may come as HTTP Basic or as the form fields. ' +
          'Also accepts `grant_type=refresh_token` with `refresh_token` (RFC 6749 §6); refresh tokens rotate on use.',
        contentTypes: ['application/x-www-form-urlencoded', 'multipart/form-data', 'application/json'],
      },
    })
    .input(passwordRequestForm)
    .output(tokenResponseSchema)
    .mutation(({ ctx, input }) => ctx.services.tokens.passwordGrant(input, headersFromContext(ctx), ctx.clientAddress, ctx.req)),
  refresh: t.procedure
    .input(refreshRequestForm)
    .output(tokenResponseSchema)
    .mutation(({ ctx, input }) => ctx.services.tokens.refreshGrant(input, headersFromContext(ctx))),
});

/**
 * The procedure paths whose responses must not be cached (they carry tokens).
 *
 * @example
 * ```ts
 * TOKEN_PROCEDURES.has('auth.token'); // true
 * ```
 */
export const TOKEN_PROCEDURES: ReadonlySet<string> = new Set(['auth.token', 'auth.refresh']);
