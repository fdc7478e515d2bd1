import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import type { IncomingMessage } from 'node:http';
import { oauth2PasswordBearer, oauth2ResponseMeta, passwordRequestForm } from '../../src/index.js';

const t = initTRPC.context<{ req: IncomingMessage }>().create({ isDev: false }); // no stack in error bodies
const auth = oauth2PasswordBearer({ tokenUrl: '/api/token', scopes: { me: 'Read you', items: 'Read your items' } });

const authed = t.procedure.use(auth); // ctx.token: string, or 401 with WWW-Authenticate: Bearer
const me = authed.use(auth.requireScopes('me')); // ctx.securityScopes.scopes: readonly 'me'[]

export const appRouter = t.router({
  token: t.procedure
    .input(passwordRequestForm) // JSON, FormData or URLSearchParams; input.scopes: string[]
    .mutation(({ input }) => ({ access_token: `token-of-${input.username}`, token_type: 'Bearer' })),
  me: me.query(({ ctx }) => ({ token: ctx.token, scopes: ctx.securityScopes.scopes })),
  items: me.use(auth.requireScopes('items')).query(({ ctx }) => ctx.securityScopes.scopeStr), // 'me items'
});

export const server = createHTTPServer({
  router: appRouter,
  createContext: ({ req }) => ({ req }),
  responseMeta: oauth2ResponseMeta(), // writes WWW-Authenticate onto the response
}); // server.listen(3000)
