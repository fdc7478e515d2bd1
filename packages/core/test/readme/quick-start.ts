import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import type { IncomingMessage } from 'node:http';
import { oauth2PasswordBearer, oauth2ResponseMeta } from '../../src/index.js';
import { jwtVerifier } from '@trpc-oauth2/jwt';

const issuer = process.env.ISSUER!; // your authorization server, e.g. https://issuer.example
const t = initTRPC.context<{ req: IncomingMessage }>().create({ isDev: false }); // no stack in error bodies
const auth = oauth2PasswordBearer({
  tokenUrl: `${issuer}/token`,
  scopes: { me: 'Read you', items: 'Read your items' },
  // Verifies each access token against the issuer's key set: 401 invalid_token when refused.
  verify: jwtVerifier({ jwksUrl: `${issuer}/jwks`, algorithms: ['ES256'], issuer, audience: 'https://api.example' }),
});

const authed = t.procedure.use(auth); // ctx.principal: { subject, scopes, expiresAt, claims }; or 401
const me = authed.use(auth.requireScopes('me')); // 403 insufficient_scope unless the token grants 'me'

export const appRouter = t.router({
  me: me.query(({ ctx }) => ({ subject: ctx.principal.subject, scopes: ctx.securityScopes.scopes })),
  items: me.use(auth.requireScopes('items')).query(({ ctx }) => ctx.securityScopes.scopeStr), // 'me items'
});

export const server = createHTTPServer({
  router: appRouter,
  createContext: ({ req }) => ({ req }),
  responseMeta: oauth2ResponseMeta(), // writes WWW-Authenticate onto the response
}); // server.listen(3000)
