import { initTRPC } from '@trpc/server';
import { oauth2PasswordBearer, passwordRequestForm } from '@trpc-oauth2/core';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { z } from 'zod';

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


const auth = oauth2PasswordBearer({ tokenUrl: '/token', scopes: { me: 'Read me', items: 'Read items' } });

/** What `/bare` and `/items` answer: who called, and with which scopes. */
const caller = z.object({ token: z.string().nullable(), scopes: z.array(z.string()) });
const tokenResponse = z.object({ access_token: z.string(), token_type: z.string(), scope: z.string() });

/**
 * The routes every face serves, and the FastAPI peer serves alike: a bare route, a route behind
 * the bearer reader with two chained scopes, and the password-flow token endpoint.
 *
 * @example
 * ```ts
 * createHTTPServer({ router: appRouter, createContext: ({ req }) => ({ req }) });
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
  token: t.procedure
    .meta({ openapi: { method: 'POST', path: '/token', contentTypes: ['application/x-www-form-urlencoded'], protect: false } })
    .input(passwordRequestForm)
    .output(tokenResponse)
    .mutation(({ input }) => ({ access_token: `token-of-${input.username}`, token_type: 'bearer', scope: input.scopes.join(' ') })),
});
