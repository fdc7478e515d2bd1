import {
  OAuth2Error,
  invalidTokenError,
  oauth2,
  oauth2PasswordBearer,
  passwordRequestFormStrict,
  readClientCredentials,
} from '@trpc-oauth2/core';
import { headersFromContext } from '@trpc-oauth2/core/protocol';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';

/**
 * The secrets hostile requests carry. Each holds `S3CR3T`, so that even a fragment of one in a
 * response or a log line is found.
 */
export const SECRETS = {
  password: 'pw-S3CR3T-4e1f0c',
  clientSecret: 'cs-S3CR3T-9a7b2d',
  token: 'tok-S3CR3T-77c2aa',
} as const;
export const SECRET_MARK = 'S3CR3T';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();
/** Stands for a real token check: one token is valid, anything else is `invalid_token`. */
const auth = oauth2PasswordBearer({
  tokenUrl: 'token',
  scopes: { me: 'Read your profile' },
  verify: async (token) => {
    if (token !== SECRETS.token) throw invalidTokenError();
    return { user: 'alice', scopes: ['me'] };
  },
});

const grant = z.object({ access_token: z.string(), token_type: z.literal('Bearer') });

/**
 * A small application as a user of the packages would write it, on REST and tRPC: a strict
 * token endpoint that authenticates the client (Basic or form) and the user, a protected
 * procedure, and one behind the base reader.
 */
export const hostileRouter = t.router({
  token: t.procedure
    .meta({ openapi: { method: 'POST', path: '/token' } })
    .input(passwordRequestFormStrict)
    .output(grant)
    .mutation(({ ctx, input }) => {
      const client = readClientCredentials(headersFromContext(ctx), input);
      if (client.clientId !== 'app' || client.clientSecret !== SECRETS.clientSecret) {
        throw new OAuth2Error({
          code: 'ERR_INVALID_CLIENT',
          status: 401,
          error: 'invalid_client',
          message: 'Client authentication failed',
          headers: { 'WWW-Authenticate': 'Basic' },
        }).toTRPCError();
      }
      if (input.username !== 'alice' || input.password !== SECRETS.password) {
        throw new OAuth2Error({ code: 'ERR_INVALID_GRANT', status: 400, error: 'invalid_grant', message: 'Incorrect username or password' }).toTRPCError();
      }
      return { access_token: SECRETS.token, token_type: 'Bearer' as const };
    }),
  me: t.procedure
    .meta({ openapi: { method: 'GET', path: '/me' } })
    .use(auth.withScopes('me'))
    .input(z.void())
    .output(z.object({ user: z.string(), scopes: z.array(z.string()) }))
    .query(({ ctx }) => ({ user: ctx.principal.user, scopes: [...ctx.securityScopes.scopes] })),
  base: t.procedure
    .meta({ openapi: { method: 'GET', path: '/base' } })
    .use(oauth2())
    .input(z.void())
    .output(z.object({ length: z.number() }))
    .query(({ ctx }) => ({ length: ctx.authorization.length })),
});

/** A well-formed token request body. */
export const GOOD_LOGIN = {
  grant_type: 'password',
  username: 'alice',
  password: SECRETS.password,
  client_id: 'app',
  client_secret: SECRETS.clientSecret,
};
