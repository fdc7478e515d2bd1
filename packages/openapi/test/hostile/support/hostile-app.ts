import { oauth2, passwordRequestFormStrict } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { hostileAuth, issueHostileToken } from '../../../../core/test/hostile/hostile-app.js';

const t = initTRPC.context<{ req: unknown }>().meta<OpenApiMeta>().create();

const grant = z.object({ access_token: z.string(), token_type: z.literal('Bearer') });

/**
 * Core's hostile application (the same token logic and reader), with the OpenAPI meta and output
 * schemas that put it on REST as well as tRPC.
 */
export const hostileRouter = t.router({
  token: t.procedure
    .meta({ openapi: { method: 'POST', path: '/token' } })
    .input(passwordRequestFormStrict)
    .output(grant)
    .mutation(issueHostileToken),
  me: t.procedure
    .meta({ openapi: { method: 'GET', path: '/me' } })
    .use(hostileAuth.withScopes('me'))
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
