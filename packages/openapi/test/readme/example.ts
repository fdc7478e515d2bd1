import { createServer } from 'node:http';
import { oauth2PasswordBearer, passwordRequestForm } from '@trpc-oauth2/core';
import { invalidTokenError } from '@trpc-oauth2/core/errors';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { generateOAuth2OpenApiDocument } from '../../src/index.js';
import { createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';
import { createDocsHandler } from '../../src/docs/node.js';

const t = initTRPC.context<{ req: Request }>().meta<OpenApiMeta>().create({ isDev: false }); // no stack in error bodies
const auth = oauth2PasswordBearer({
  tokenUrl: '/api/token',
  scopes: { me: 'Read you' },
  verify: async (token) => { // in production: jwtVerifier of @trpc-oauth2/jwt
    if (!token.startsWith('token-of-')) throw invalidTokenError('Unknown token');
    return { scopes: ['me'] };
  },
});

export const appRouter = t.router({
  token: t.procedure.meta({ openapi: { method: 'POST', path: '/token' } }) // body: a urlencoded form
    .input(passwordRequestForm).output(z.object({ access_token: z.string(), token_type: z.string() }))
    .mutation(({ input }) => ({ access_token: `token-of-${input.username}`, token_type: 'bearer' })),
  me: t.procedure.meta({ openapi: { method: 'GET', path: '/me' } }).use(auth).use(auth.requireScopes('me'))
    .input(z.void()).output(z.string()).query(({ ctx }) => ctx.token), // 401 + WWW-Authenticate: Bearer
});

// security of GET /me: [{ OAuth2PasswordBearer: ['me'] }], read from the chain
export const document = generateOAuth2OpenApiDocument(appRouter, { title: 'API', version: '1.0.0', baseUrl: '/api' });
const docs = createDocsHandler({ documents: [{ url: '/openapi.json', document }] }); // Swagger UI at /docs
const rest = createOAuth2OpenApiHttpHandler({
  router: appRouter,
  basePath: '/api', // GET /api/me is the operation GET /me
  createContext: ({ req }) => ({ req }), // req: the Fetch Request the handler reads
  onError: ({ error }) => console.error(error), // wrapped with oauth2OnError: a malformed JSON body's text never gets here
});
export const server = createServer((req, res) => docs(req, res) || void rest(req, res));
