import { z } from 'zod';
import { itemSchema, userSchema } from './schemas.js';
import { auth, authed } from './security.js';
import { t } from './trpc.js';

// Every users procedure starts here; `items` adds its scope on top, so it requires both.
const readMe = authed.use(auth.requireScopes('me'));

/**
 * The protected operations: `GET /api/users/me` (scope `me`) and `GET /api/users/me/items`
 * (scopes `me` and `items`), also `users.me` and `users.items` over tRPC.
 *
 * @example
 * ```ts
 * const items = await client.users.items.query(); // 403 insufficient_scope without `items`
 * ```
 */
export const usersRouter = t.router({
  me: readMe
    .meta({ openapi: { method: 'GET', path: '/users/me', tags: ['users'], summary: 'Who am I', protect: true } })
    .input(z.void())
    .output(userSchema)
    .query(({ ctx }) => ctx.principal.user),
  items: readMe
    .use(auth.requireScopes('items'))
    .meta({ openapi: { method: 'GET', path: '/users/me/items', tags: ['users'], summary: 'My items', protect: true } })
    .input(z.void())
    .output(z.array(itemSchema))
    .query(({ ctx }) => ctx.services.users.items(ctx.principal.user.username)),
});
