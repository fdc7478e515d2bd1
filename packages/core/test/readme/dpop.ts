import { initTRPC } from '@trpc/server';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import type { IncomingMessage } from 'node:http';
import { oauth2PasswordBearer, oauth2ResponseMeta } from '../../src/index.js';
import { dpopProofVerifier } from '../../src/dpop/index.js';
import { jwtVerifier } from '@trpc-oauth2/jwt';

const issuer = process.env.ISSUER!;
const t = initTRPC.context<{ req: IncomingMessage }>().create({ isDev: false });
const auth = oauth2PasswordBearer({
  tokenUrl: `${issuer}/token`,
  scopes: { me: 'Read you' },
  origin: 'https://api.example', // the URL clients call: DPoP proofs name it, never the Host header
  verify: jwtVerifier({ jwksUrl: `${issuer}/jwks`, algorithms: ['ES256'], issuer, audience: 'https://api.example' }),
  // Authorization: DPoP <token> + a DPoP proof; the token's cnf.jkt must be the proof key's thumbprint.
  dpop: { mode: 'required', proofs: dpopProofVerifier({ algorithms: ['ES256', 'EdDSA'] }) },
});

export const appRouter = t.router({
  me: t.procedure.use(auth).use(auth.requireScopes('me')).query(({ ctx }) => ({ subject: ctx.principal.subject })),
});

export const server = createHTTPServer({ router: appRouter, createContext: ({ req }) => ({ req }), responseMeta: oauth2ResponseMeta() });
