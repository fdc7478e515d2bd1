import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import type { IncomingMessage } from 'node:http';
import { invalidTokenError, oauth2PasswordBearer, oauth2ResponseMeta, passwordRequestForm } from '../../src/index.js';

const t = initTRPC.context<{ req: IncomingMessage }>().create();
const auth = oauth2PasswordBearer({
  tokenUrl: '/api/token',
  scopes: { me: 'Read you', items: 'Read your items' },
  verify: async (token) => {
    if (token !== 'token-of-alice') throw invalidTokenError('Unknown token'); // 401 invalid_token
    return { subject: 'alice', scopes: ['me'] }; // what the token grants
  },
});

const authed = t.procedure.use(auth); // ctx.token, ctx.principal; or 401 with WWW-Authenticate: Bearer
const me = authed.use(auth.requireScopes('me')); // 403 insufficient_scope unless the token grants 'me'

export const appRouter = t.router({
  token: t.procedure
    .input(passwordRequestForm) // JSON, FormData or URLSearchParams; input.scopes: string[]
    .mutation(({ input }) => ({ access_token: `token-of-${input.username}`, token_type: 'Bearer' })),
  me: me.query(({ ctx }) => ({ subject: ctx.principal.subject, scopes: ctx.securityScopes.scopes })),
  items: me.use(auth.requireScopes('items')).query(({ ctx }) => ctx.securityScopes.scopeStr), // 403: 'items' is not granted
});

export const server = createHTTPServer({
  router: appRouter,
  createContext: ({ req }) => ({ req }),
  responseMeta: oauth2ResponseMeta(), // writes WWW-Authenticate onto the response
}); // server.listen(3000)
