import {
  oauth2,
  oauth2AuthorizationCodeBearer,
  oauth2PasswordBearer,
  passwordRequestForm,
  passwordRequestFormStrict,
} from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';

const t = initTRPC.context<{ req?: unknown }>().meta<OpenApiMeta>().create();

const scopes = { me: 'Read your profile', items: 'Read your items', admin: 'Administer' };
export const password = oauth2PasswordBearer({ tokenUrl: 'token', refreshUrl: 'refresh', scopes, description: 'Password flow', manualScopeCheck: true });
/** The same scheme, letting anonymous requests through: it shares the name, so it must not conflict. */
export const passwordOptional = oauth2PasswordBearer({ tokenUrl: 'token', refreshUrl: 'refresh', scopes, description: 'Password flow', autoError: false, manualScopeCheck: true });
export const code = oauth2AuthorizationCodeBearer({ authorizationUrl: 'authorize', tokenUrl: 'token', scopes: { read: 'Read' }, manualScopeCheck: true });
export const service = oauth2({
  flows: { clientCredentials: { tokenUrl: 'token', scopes: { svc: 'Call as a service' } } },
  schemeName: 'ServiceAuth',
  description: 'Service to service',
  manualScopeCheck: true,
});
/** Used only by a procedure that is not part of the REST face. */
export const internal = oauth2PasswordBearer({ tokenUrl: 'internal-token', schemeName: 'Internal' });

const authed = t.procedure.use(password);
const me = authed.use(password.requireScopes('me'));
const items = me.use(password.requireScopes('items'));
const admin = items.use(password.requireScopes('admin', 'me'));

const grant = z.object({ access_token: z.string(), token_type: z.string() });
const seen = z.object({ token: z.string().nullable(), scopes: z.array(z.string()) });
const get = (path: `/${string}`) => ({ openapi: { method: 'GET', path } }) as const;
const none = z.void();

/** Every reader, scopes at several chain depths, optional authentication and two token endpoints. */
export const documentRouter = t.router({
  token: t.procedure
    .meta({ openapi: { method: 'POST', path: '/token', summary: 'Issue a token' } })
    .input(passwordRequestForm)
    .output(grant)
    .mutation(({ input }) => ({ access_token: `token-of-${input.username}:${input.scopes.join(',')}`, token_type: 'bearer' })),
  tokenStrict: t.procedure.meta({ openapi: { method: 'POST', path: '/token/strict' } }).input(passwordRequestFormStrict).output(grant).mutation(() => ({ access_token: 'x', token_type: 'bearer' })),
  status: t.procedure.meta(get('/status')).input(none).output(z.string()).query(() => 'ok'),
  profile: authed.meta(get('/profile')).input(none).output(seen).query(({ ctx }) => ({ token: ctx.token, scopes: [] })),
  me: me.meta(get('/me')).input(none).output(seen).query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  items: items.meta(get('/items')).input(none).output(seen).query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  admin: admin.meta({ openapi: { method: 'DELETE', path: '/admin' } }).input(none).output(seen).mutation(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  oneStep: t.procedure
    .use(password.withScopes('me', 'items'))
    .meta(get('/one-step'))
    .input(none)
    .output(seen)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  feed: t.procedure.use(passwordOptional).meta(get('/feed')).input(none).output(seen).query(({ ctx }) => ({ token: ctx.token, scopes: [] })),
  personalFeed: t.procedure
    .use(passwordOptional)
    .use(passwordOptional.requireScopes('me'))
    .meta(get('/feed/personal'))
    .input(none)
    .output(seen)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  code: t.procedure.use(code).use(code.requireScopes('read')).meta(get('/code')).input(none).output(seen).query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  both: t.procedure
    .use(password)
    .use(code)
    .use(password.requireScopes('items'))
    .use(code.requireScopes('read'))
    .meta(get('/both'))
    .input(none)
    .output(seen)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  service: t.procedure
    .concat(service.procedure)
    .use(service.requireScopes('svc'))
    .meta(get('/service'))
    .input(none)
    .output(z.string())
    .query(({ ctx }) => ctx.authorization),
  internal: t.procedure.use(internal).query(({ ctx }) => ctx.token),
  hidden: t.procedure.use(internal).meta({ openapi: { ...get('/hidden').openapi, enabled: false } }).input(none).output(z.string()).query(({ ctx }) => ctx.token),
});
