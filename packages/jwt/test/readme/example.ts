import type { IncomingMessage } from 'node:http';
import { oauth2PasswordBearer, oauth2ResponseMeta } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { cacheVerifier, jwtVerifier } from '../../src/index.js';

const issuer = process.env.ISSUER!; // the authorization server, e.g. https://issuer.example
const verify = cacheVerifier(
  jwtVerifier({ jwksUrl: `${issuer}/jwks`, algorithms: ['RS256'], issuer, audience: 'https://api.example/jwt' }),
  { maxEntries: 10_000, maxAge: 300 },
);

const t = initTRPC.context<{ req: IncomingMessage }>().create();
const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { read: 'Read', write: 'Write' } });
const authed = t.procedure.use(auth).use(async ({ ctx, signal, next }) => {
  const principal = await verify(ctx.token, { signal }); // 401 invalid_token, or 503 if the key set is down
  return next({ ctx: { principal, grantedScopes: principal.scopes } }); // requireScopes checks grantedScopes
});

export const appRouter = t.router({
  whoami: authed.use(auth.requireScopes('read')).query(({ ctx }) => ctx.principal.subject),
  write: authed.use(auth.requireScopes('write')).mutation(() => 'written'), // 403 insufficient_scope without it
});
export const server = createHTTPServer({ router: appRouter, createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() });
