import { authRouter } from './auth-router.js';
import { conformanceRouter } from './conformance-router.js';
import { t } from './trpc.js';
import { usersRouter } from './users-router.js';

/**
 * The whole API: served over tRPC at `/trpc` and, for procedures with OpenAPI metadata, over
 * REST at `/api`.
 *
 * @example
 * ```ts
 * const client = createTRPCClient<AppRouter>({ links: [httpLink({ url, transformer: superjson })] });
 * ```
 */
export const appRouter = t.router({
  auth: authRouter,
  users: usersRouter,
  conformance: conformanceRouter,
});

/**
 * The router's type, all a client needs to be typed end to end.
 *
 * @example
 * ```ts
 * import type { AppRouter } from '@trpc-oauth2/demo/router';
 * ```
 */
export type AppRouter = typeof appRouter;
