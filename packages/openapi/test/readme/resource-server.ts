import type { IncomingMessage } from 'node:http';
import { oauth2Bearer } from '@trpc-oauth2/core';
import { jwtVerifier } from '@trpc-oauth2/jwt';
import { protectedResourceMetadata, resourceMetadataUrl } from '../../src/index.js';
import { createOAuth2HTTPServer } from '../../src/adapters/standalone.js';
import { initTRPC } from '@trpc/server';

const issuer = process.env.ISSUER!; // the authorization server
const resource = 'https://api.example/mcp'; // what clients ask tokens for (RFC 8707)
const auth = oauth2Bearer({
  flows: { authorizationCode: { authorizationUrl: `${issuer}/auth`, tokenUrl: `${issuer}/token`, scopes: { 'items:read': 'Read', 'items:write': 'Write' } } },
  implies: { 'items:write': ['items:read'] }, // a write grant reads too
  resourceMetadata: resourceMetadataUrl(resource), // every 401 / 403 points clients at the metadata
  verify: jwtVerifier({ jwksUrl: `${issuer}/jwks`, algorithms: ['ES256'], issuer, audience: resource }),
});
const t = initTRPC.context<{ req: IncomingMessage }>().create({ isDev: false });
export const appRouter = t.router({ items: t.procedure.use(auth.withScopes('items:read')).query(() => ['a', 'b']) });
export const resourceServer = createOAuth2HTTPServer({
  router: appRouter,
  createContext: ({ req }) => ({ req }),
  // Served at /.well-known/oauth-protected-resource/mcp; refused at start if a verifier accepts
  // another audience, or not the issuer advertised (spelled exactly as the server spells it).
  resourceMetadata: protectedResourceMetadata(appRouter, { resource, authorizationServers: [issuer] }),
});
