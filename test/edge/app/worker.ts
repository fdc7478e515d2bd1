/**
 * An edge function as a user writes one: a reader whose `jwtVerifier` reads a JWKS over the
 * network, one that also takes DPoP-bound tokens only (its proofs checked by core's WebCrypto
 * signature step, the one a runtime without `node:crypto` loads), and one whose `jwtVerifier` is
 * wrapped in `cacheVerifier` (keyed by WebCrypto's SHA-256 here), served on REST (`/api`) and on
 * tRPC (`/trpc`) by the fetch entry of `@trpc-oauth2/openapi`. Bundled from the built packages
 * and run inside edge-runtime.
 */
import { oauth2PasswordBearer } from '@trpc-oauth2/core';
import { cacheVerifier, jwtVerifier, type AudienceBoundVerifier, type JwtPrincipal, type VerifyOptions } from '@trpc-oauth2/jwt';
import { createOAuth2OpenApiFetchHandler, oauth2FetchRequestHandler } from '@trpc-oauth2/openapi/adapters/fetch';
import { initTRPC } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';

/** What the test hands the function, as a platform hands it its environment. */
export interface EdgeEnv {
  jwksUrl: string;
  issuer: string;
  audience: string;
}

declare const EDGE_ENV: EdgeEnv;
/** Set by edge-runtime (and by Vercel's edge functions): what runtime this is. */
declare const EdgeRuntime: string | undefined;
declare function addEventListener(type: 'fetch', listener: (event: { request: Request; respondWith(response: Promise<Response>): void }) => void): void;

const verify = jwtVerifier({ jwksUrl: EDGE_ENV.jwksUrl, algorithms: ['ES256'], issuer: EDGE_ENV.issuer, audience: EDGE_ENV.audience });
const scopes = { me: 'Read your profile', admin: 'Administer' };
const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes, verify });
// A cache in front of a verifier that counts what it is asked: a remembered token is not verified again.
let verifications = 0;
const counted: AudienceBoundVerifier<JwtPrincipal> = Object.assign(
  (token: string, options?: VerifyOptions) => {
    verifications += 1;
    return verify(token, options);
  },
  { audience: verify.audience },
);
const cached = oauth2PasswordBearer({ tokenUrl: '/token', scopes, verify: cacheVerifier(counted, { maxEntries: 100 }) });
// An edge platform hands the function the URL the client used: its origin is the one proofs name.
const bound = oauth2PasswordBearer({ tokenUrl: '/token', scopes, verify, dpop: { mode: 'required' }, origin: (ctx: { req: Request }) => new URL(ctx.req.url).origin });

const t = initTRPC.context<{ req: Request }>().meta<OpenApiMeta>().create({ isDev: false });

const router = t.router({
  me: t.procedure
    .meta({ openapi: { method: 'GET', path: '/me' } })
    .use(auth.withScopes('me'))
    .input(z.void())
    .output(z.object({ subject: z.string(), scopes: z.array(z.string()) }))
    .query(({ ctx }) => ({ subject: ctx.principal.subject, scopes: [...ctx.principal.scopes] })),
  admin: t.procedure
    .meta({ openapi: { method: 'GET', path: '/admin' } })
    .use(auth.withScopes('admin'))
    .input(z.void())
    .output(z.string())
    .query(() => 'administered'),
  // A form body goes through the body policy before the reader runs.
  rename: t.procedure
    .meta({ openapi: { method: 'POST', path: '/rename' } })
    .use(auth.withScopes('me'))
    .input(z.object({ name: z.string() }))
    .output(z.string())
    .mutation(({ input, ctx }) => `${ctx.principal.subject} is now ${input.name}`),
  bound: t.procedure
    .meta({ openapi: { method: 'GET', path: '/bound' } })
    .use(bound.withScopes('me'))
    .input(z.void())
    .output(z.object({ subject: z.string(), jkt: z.string() }))
    .query(({ ctx }) => ({ subject: ctx.principal.subject, jkt: ctx.principal.cnf?.jkt ?? '' })),
  cached: t.procedure
    .meta({ openapi: { method: 'GET', path: '/cached' } })
    .use(cached.withScopes('me'))
    .input(z.void())
    .output(z.object({ subject: z.string(), verifications: z.number(), nodeBuiltins: z.boolean() }))
    .query(({ ctx }) => ({ subject: ctx.principal.subject, verifications, nodeBuiltins: typeof globalThis.process?.getBuiltinModule === 'function' })),
  runtime: t.procedure
    .meta({ openapi: { method: 'GET', path: '/runtime' } })
    .input(z.void())
    .output(z.string())
    .query(() => (typeof EdgeRuntime === 'string' ? EdgeRuntime : 'not an edge runtime')),
});

const createContext = ({ req }: { req: Request }) => ({ req });

addEventListener('fetch', (event) => {
  const { pathname } = new URL(event.request.url);
  const req = event.request;
  event.respondWith(
    pathname.startsWith('/trpc/')
      ? oauth2FetchRequestHandler({ endpoint: '/trpc', router, req, createContext })
      : createOAuth2OpenApiFetchHandler({ basePath: '/api', router, req, createContext }),
  );
});
