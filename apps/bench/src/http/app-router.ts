import { initTRPC } from '@trpc/server';
import { oauth2PasswordBearer, passwordRequestForm } from '@trpc-oauth2/core';
import { cacheVerifier, jwtVerifier } from '@trpc-oauth2/jwt';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';
import { BENCH_JWT } from '../bench-jwt.js';
import { HTTP_AUTHORIZATION } from '../bearer-header.js';
import { dpopRequired, peekBearer } from './dpop-routes.js';

/**
 * Every HTTP face puts the request (Node `IncomingMessage` or Fetch `Request`) on ctx.
 *
 * @example
 * ```ts
 * const createContext = ({ req }: { req: { headers: unknown } }): HttpContext => ({ req });
 * ```
 */
export interface HttpContext {
  req: { headers: unknown };
}

const t = initTRPC.context<HttpContext>().meta<OpenApiMeta>().create();

const scopes = { me: 'Read me', items: 'Read items' };
/** The reader of FastAPI's tutorial shape: scopes declared and collected, the token not checked. */
const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes, manualScopeCheck: true });
const jwt = jwtVerifier({ key: BENCH_JWT.publicJwk, algorithms: ['ES256'], issuer: BENCH_JWT.issuer, audience: BENCH_JWT.audience });
/** The verified reader: an ES256 JWT checked on every request (no cache), its scopes enforced. */
const verified = oauth2PasswordBearer({ tokenUrl: '/token', scopes, verify: jwt });
/** The same reader as the README recommends it: verified tokens remembered by `cacheVerifier`. */
const verifiedCached = oauth2PasswordBearer({ tokenUrl: '/token', scopes, verify: cacheVerifier(jwt, { maxEntries: 10_000 }) });

/** The token the protected routes are sent, which the control route answers without reading it. */
const SENT_TOKEN = HTTP_AUTHORIZATION.slice('Bearer '.length);

/** What `/bare` and `/items` answer: who called, and with which scopes. */
const caller = z.object({ token: z.string().nullable(), scopes: z.array(z.string()) });
const tokenResponse = z.object({ access_token: z.string(), token_type: z.string(), scope: z.string() });

/**
 * The routes every face serves, and the FastAPI peer serves alike: a bare route, a route behind
 * the bearer reader with two chained scopes (three `.use()` steps), the same security in the one
 * step of `withScopes` (FastAPI serves `/items` for both), a route that verifies an ES256 JWT
 * and enforces its scopes (`/items-jwt`, FastAPI's tutorial with PyJWT alike), the same answer to the same request
 * with no security at all (a control: what the larger request and answer cost by themselves),
 * and the password-flow token endpoint.
 *
 * @example
 * ```ts
 * createOAuth2HTTPServer({ router: appRouter, createContext: ({ req }) => ({ req }) });
 * ```
 */
export const appRouter = t.router({
  bare: t.procedure
    .meta({ openapi: { method: 'GET', path: '/bare', protect: false } })
    .input(z.void())
    .output(caller)
    .query(() => ({ token: null, scopes: [] })),
  items: t.procedure
    .use(auth)
    .use(auth.requireScopes('me'))
    .use(auth.requireScopes('items'))
    .meta({ openapi: { method: 'GET', path: '/items' } })
    .input(z.void())
    .output(caller)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  itemsOneStep: t.procedure
    .use(auth.withScopes('me', 'items'))
    .meta({ openapi: { method: 'GET', path: '/items-one-step' } })
    .input(z.void())
    .output(caller)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  itemsJwt: t.procedure
    .use(verified.withScopes('me', 'items'))
    .meta({ openapi: { method: 'GET', path: '/items-jwt' } })
    .input(z.void())
    .output(caller)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  itemsJwtCached: t.procedure
    .use(verifiedCached.withScopes('me', 'items'))
    .meta({ openapi: { method: 'GET', path: '/items-jwt-cached' } })
    .input(z.void())
    .output(caller)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  // The DPoP pair: the same verified reader (principal known at once), as Bearer and with DPoP.
  itemsPeek: t.procedure
    .use(peekBearer.withScopes('me', 'items'))
    .meta({ openapi: { method: 'GET', path: '/items-peek' } })
    .input(z.void())
    .output(caller)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  itemsDPoP: t.procedure
    .use(dpopRequired.withScopes('me', 'items'))
    .meta({ openapi: { method: 'GET', path: '/items-dpop' } })
    .input(z.void())
    .output(caller)
    .query(({ ctx }) => ({ token: ctx.token, scopes: [...ctx.securityScopes.scopes] })),
  itemsNoSecurity: t.procedure
    .meta({ openapi: { method: 'GET', path: '/items-no-security', protect: false } })
    .input(z.void())
    .output(caller)
    .query(() => ({ token: SENT_TOKEN, scopes: ['me', 'items'] })),
  token: t.procedure
    .meta({ openapi: { method: 'POST', path: '/token', contentTypes: ['application/x-www-form-urlencoded'], protect: false } })
    .input(passwordRequestForm)
    .output(tokenResponse)
    .mutation(({ input }) => ({ access_token: `token-of-${input.username}`, token_type: 'bearer', scope: input.scopes.join(' ') })),
});
