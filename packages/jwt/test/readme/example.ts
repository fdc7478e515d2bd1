import type { IncomingMessage } from 'node:http';
import { oauth2AuthorizationCodeBearer, oauth2PasswordBearer, oauth2ResponseMeta } from '@trpc-oauth2/core';
import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { cacheVerifier, introspectionVerifier, jwtVerifier } from '../../src/index.js';

const issuer = process.env.ISSUER!; // the authorization server, e.g. https://issuer.example

// JWT access tokens, checked against the authorization server's key set.
const auth = oauth2PasswordBearer({
  tokenUrl: '/token',
  scopes: { read: 'Read', write: 'Write' },
  verify: cacheVerifier(
    jwtVerifier({ jwksUrl: `${issuer}/jwks`, algorithms: ['RS256'], issuer, audience: 'https://api.example/jwt' }),
    { maxEntries: 10_000, maxAge: 300 },
  ), // 401 invalid_token when refused, 503 if the key set is down
});

// Opaque access tokens, asked of its introspection endpoint (RFC 7662).
const opaque = oauth2AuthorizationCodeBearer({
  authorizationUrl: `${issuer}/auth`,
  tokenUrl: `${issuer}/token`,
  scopes: { read: 'Read' },
  verify: introspectionVerifier({
    endpoint: `${issuer}/token/introspection`,
    clientId: process.env.INTROSPECTION_CLIENT_ID!, // this resource server's own client
    clientSecret: process.env.INTROSPECTION_SECRET!,
    audience: 'https://api.example/opaque', // required: another API's token, or a refresh token, is refused
    issuer,
    cache: { maxEntries: 10_000, maxAge: 30 }, // a revoked token stays accepted up to 30 s
  }),
});

const t = initTRPC.context<{ req: IncomingMessage }>().create({ isDev: false }); // no stack in error bodies
export const appRouter = t.router({
  whoami: t.procedure.use(auth.withScopes('read')).query(({ ctx }) => ctx.principal.subject), // JwtPrincipal
  write: t.procedure.use(auth.withScopes('write')).mutation(() => 'written'), // 403 insufficient_scope without it
  opaque: t.procedure.use(opaque.withScopes('read')).query(({ ctx }) => ctx.principal.clientId), // IntrospectionPrincipal
});
export const server = createHTTPServer({ router: appRouter, createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() });
