import { authRouter } from './auth-router.js';
import { t } from './trpc.js';
import { usersRouter } from './users-router.js';

/**
 * The demo API: the token endpoint's procedures and the protected operations. Served over tRPC
 * at `/trpc` and, for procedures with OpenAPI metadata, over REST at `/api`; documented at
 * `/openapi.json`. The server serves it beside the conformance routes (see `server/app-router.ts`).
 *
 * @example
 * ```ts
 * const caller = apiRouter.createCaller(ctx);
 * await caller.users.me();
 * ```
 */
export const apiRouter = t.router({
  auth: authRouter,
  users: usersRouter,
});
