/**
 * An edge function that serves tRPC only, from `@trpc-oauth2/openapi/adapters/trpc-fetch`: a
 * reader whose `jwtVerifier` reads a JWKS over the network. Bundled with no Node built-in at all
 * (test/edge/bundle.ts, `bundleWithoutNode`) and run inside edge-runtime.
 */
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { jwtVerifier } from '@trpc-oauth2/jwt';
import { oauth2FetchRequestHandler } from '@trpc-oauth2/openapi/adapters/trpc-fetch';
import { initTRPC } from '@trpc/server';
import type { EdgeEnv } from './worker.js';

declare const EDGE_ENV: EdgeEnv;
declare function addEventListener(type: 'fetch', listener: (event: { request: Request; respondWith(response: Promise<Response>): void }) => void): void;

const verify = jwtVerifier({ jwksUrl: EDGE_ENV.jwksUrl, algorithms: ['ES256'], issuer: EDGE_ENV.issuer, audience: EDGE_ENV.audience });
const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read your profile' }, verify });
const t = initTRPC.context<{ req: Request }>().create({ isDev: false });
const router = t.router({
  me: t.procedure.use(auth.withScopes('me')).query(({ ctx }) => ({ subject: ctx.principal.subject })),
});

addEventListener('fetch', (event) => {
  event.respondWith(oauth2FetchRequestHandler({ endpoint: '/trpc', req: event.request, router, createContext: ({ req }) => ({ req }) }));
});
