import { TRPCError, tracked } from '@trpc/server';
import { z } from 'zod';
import { itemSchema, userSchema } from './schemas.js';
import { auth, authed } from './security.js';
import { t } from './trpc.js';
import { MAX_ITEM_ID, MAX_ITEMS_PER_USER } from '../store/users.js';

/** Text without control characters (a database refuses a NUL; the others have no place in a title). */
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f]*$/;

/**
 * How many item streams one user may have open at once, over all connections: each holds a
 * watch on the feed and reads the database when an item comes, and a WebSocket takes any number
 * of subscriptions. Far more than a person's windows and devices need.
 */
const MAX_OPEN_STREAMS = 32;
const openStreams = new Map<string, number>();

/**
 * Counts a stream of `username` as open until `ended` aborts (the stream ended, whichever way);
 * refuses it with 429 `TOO_MANY_REQUESTS` when the user has {@link MAX_OPEN_STREAMS} open already.
 */
function openStream(username: string, ended: AbortSignal): void {
  const open = openStreams.get(username) ?? 0;
  if (open >= MAX_OPEN_STREAMS) throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: `At most ${MAX_OPEN_STREAMS} item streams may be open at once` });
  openStreams.set(username, open + 1);
  const close = () => {
    const left = openStreams.get(username)! - 1;
    if (left === 0) openStreams.delete(username);
    else openStreams.set(username, left);
  };
  if (ended.aborted) close();
  else ended.addEventListener('abort', close, { once: true });
}

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
  /** Adds an item to the caller's list (tRPC only): the item streams of the user see it. */
  addItem: readMe
    .use(auth.requireScopes('items'))
    .input(z.object({ title: z.string().trim().min(1).max(200).regex(PRINTABLE, 'A title has no control characters') }))
    .output(itemSchema)
    .mutation(async ({ ctx, input }) => {
      const item = await ctx.services.users.addItem(ctx.principal.user.username, input.title);
      if (item === null) throw new TRPCError({ code: 'CONFLICT', message: `A user has at most ${MAX_ITEMS_PER_USER} items: this list is full` });
      ctx.services.itemFeed.notify(ctx.principal.user.username);
      return item;
    }),
  /**
   * The caller's items as they are added (tRPC only, over WebSockets or Server-Sent Events):
   * every item after `lastEventId` (an item id), then each new one. The stream ends when the
   * token expires (401 "The access token expired"); the client resumes with a fresh token and the
   * last id it got, and misses nothing.
   */
  watchItems: readMe
    .use(auth.requireScopes('items'))
    // Counted once the caller is known, refused before the stream opens; `ctx.streamSignal` ends the count.
    .use(({ ctx, signal, next }) => {
      const ended = ctx.streamSignal ?? signal;
      if (ended !== undefined) openStream(ctx.principal.user.username, ended);
      return next();
    })
    // An id past the largest one is the client's mistake (400): the database would refuse the
    // number in the query, a 500 to the client.
    .input(
      z
        .object({
          lastEventId: z
            .string()
            .regex(/^\d{1,15}$/)
            .refine((id) => Number(id) <= MAX_ITEM_ID, `An item id is at most ${MAX_ITEM_ID}`)
            .nullish(),
        })
        .optional(),
    )
    .subscription(async function* ({ ctx, input, signal }) {
      const username = ctx.principal.user.username;
      let after = Number(input?.lastEventId ?? 0);
      // Watch before reading: an item added between the read and the wait wakes the next read.
      // `ctx.streamSignal` ends the wait when the stream ends by itself too (the token expired),
      // which `signal` does not (docs/contract.md#subscriptions).
      const changes = ctx.services.itemFeed.watch(username, ctx.streamSignal ?? signal);
      try {
        do {
          for (const item of await ctx.services.users.itemsAfter(username, after)) {
            after = item.id;
            yield tracked(String(item.id), item);
          }
        } while (await changes.changed());
      } finally {
        changes.close();
      }
    }),
});
