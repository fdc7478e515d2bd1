import { apiRouter } from '../api/router.js';
import { t } from '../api/trpc.js';
import { conformanceRouter } from '../conformance/router.js';

/**
 * Everything the server serves over tRPC at `/trpc` and over REST at `/api`: the demo API and,
 * beside it, the conformance routes.
 *
 * @example
 * ```ts
 * const client = createTRPCClient<AppRouter>({ links: [httpLink({ url, transformer: superjson })] });
 * ```
 */
export const appRouter = t.mergeRouters(apiRouter, conformanceRouter);

/**
 * The served router's type, all a client needs to be typed end to end.
 *
 * @example
 * ```ts
 * import type { AppRouter } from './server/app-router.js';
 * ```
 */
export type AppRouter = typeof appRouter;
