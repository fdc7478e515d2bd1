import { initTRPC, type TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { createHTTPServer } from '@trpc/server/adapters/standalone';
import { expectTypeOf } from 'vitest';
import { oauth2OnError } from '../../src/index.js';

const t = initTRPC.create();
const router = t.router({ q: t.procedure.query(() => 1) });

// The inner onError gets the adapter's own options, inferred from where oauth2OnError is used.
createHTTPServer({
  router,
  onError: oauth2OnError(({ error, path, req }) => {
    expectTypeOf(error).toEqualTypeOf<TRPCError>();
    expectTypeOf(path).toEqualTypeOf<string | undefined>();
    expectTypeOf(req.socket.remoteAddress).toEqualTypeOf<string | undefined>();
  }),
});
void fetchRequestHandler({
  endpoint: '/trpc',
  req: new Request('http://x/trpc/q'),
  router,
  onError: oauth2OnError(({ req }) => expectTypeOf(req).toEqualTypeOf<Request>()),
});
createHTTPServer({ router, onError: oauth2OnError() });
// @ts-expect-error the options must carry the TRPCError to redact
oauth2OnError((opts: { error: string }) => opts);
