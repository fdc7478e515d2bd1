import { createServer, type Server } from 'node:http';
import type { AnyTRPCRouter } from '@trpc/server';
import type { CreateHTTPHandlerOptions } from '@trpc/server/adapters/standalone';
import { createOAuth2HTTPHandler } from './create-oauth2-http-handler.js';

/**
 * tRPC's standalone `createHTTPServer` with {@link createOAuth2HTTPHandler}: urlencoded bodies
 * accepted, challenge headers written, `onError` wrapped with `oauth2OnError`. Call `.listen()` on it.
 *
 * @example
 * ```ts
 * createOAuth2HTTPServer({ router: appRouter, createContext: ({ req }) => ({ req }) }).listen(3000);
 * ```
 */
export function createOAuth2HTTPServer<$Router extends AnyTRPCRouter>(opts: CreateHTTPHandlerOptions<$Router>): Server {
  return createServer(createOAuth2HTTPHandler(opts));
}
