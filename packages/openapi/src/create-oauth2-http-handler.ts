import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { oauth2OnError, oauth2ResponseMeta } from '@trpc-oauth2/core';
import type { AnyTRPCRouter } from '@trpc/server';
import { createHTTPHandler, type CreateHTTPHandlerOptions } from '@trpc/server/adapters/standalone';
import { URLENCODED } from './media-type.js';
import { refuseBodyErrors } from './refuse-body-errors.js';
import { rewriteIncomingForm } from './rewrite-incoming-form.js';
import { routerSerializer } from './router-serializer.js';

/**
 * tRPC's standalone `createHTTPHandler` that also accepts `application/x-www-form-urlencoded`
 * bodies (tRPC alone answers them 415): the form reaches the input parser as an object of its
 * text fields, the last of repeated values winning and empty values left out, through the
 * router's transformer; `ctx.req` then reads `content-type: application/json`. Form bodies are
 * limited by `maxBodySize` (100 000 bytes when unset). `multipart/form-data` stays tRPC's own.
 * Each error's challenge headers (`WWW-Authenticate`) are written with `oauth2ResponseMeta`, and
 * your `onError` is wrapped with `oauth2OnError`, so neither it nor the response ever sees the
 * text of a malformed JSON body.
 *
 * @example
 * ```ts
 * const trpc = createOAuth2HTTPHandler({ router: appRouter, basePath: '/trpc/', createContext: ({ req }) => ({ req }) });
 * http.createServer(trpc).listen(3000);
 * ```
 */
export function createOAuth2HTTPHandler<$Router extends AnyTRPCRouter>(opts: CreateHTTPHandlerOptions<$Router>): RequestListener {
  const handle = createHTTPHandler({
    ...opts,
    createContext: refuseBodyErrors(opts.createContext as never),
    responseMeta: oauth2ResponseMeta(opts.responseMeta as never),
    onError: oauth2OnError(opts.onError as never),
  } as CreateHTTPHandlerOptions<$Router>);
  const formOptions = { mediaTypes: [URLENCODED], maxBodySize: opts.maxBodySize, serialize: routerSerializer(opts.router) } as const;
  return (req: IncomingMessage, res: ServerResponse) => {
    void rewriteIncomingForm(req, res, formOptions).then(() => handle(req, res));
  };
}
