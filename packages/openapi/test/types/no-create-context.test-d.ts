// Given no createContext, each handler makes the context `{ req }` (test/adapters/no-create-context.test.ts):
// the Node request on tRPC's standalone face, a Fetch Request on the other three. createContext may be
// left out wherever that context is one of the router's, and only there.
import type { IncomingMessage } from 'node:http';
import { initTRPC } from '@trpc/server';
import type { FetchCreateContextFnOptions } from '@trpc/server/adapters/fetch';
import type { CreateHTTPContextOptions } from '@trpc/server/adapters/standalone';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { expectTypeOf } from 'vitest';
import { createOAuth2OpenApiFetchHandler, oauth2FetchRequestHandler } from '../../src/adapters/fetch.js';
import {
  createOAuth2HTTPHandler,
  createOAuth2HTTPServer,
  createOAuth2OpenApiHttpHandler,
  type OAuth2OpenApiHttpContextOptions,
} from '../../src/adapters/standalone.js';

const req = new Request('http://127.0.0.1/api/hello');

// The context the READMEs recommend: either request. No face needs createContext.
type Either = { req: IncomingMessage | Request };
const either = initTRPC.context<Either>().meta<OpenApiMeta>().create();
const eitherRouter = either.router({ hello: either.procedure.query(({ ctx }) => ctx.req.headers) });
createOAuth2HTTPHandler({ router: eitherRouter });
createOAuth2HTTPServer({ router: eitherRouter, basePath: '/trpc/' });
oauth2FetchRequestHandler({ endpoint: '/trpc', router: eitherRouter, req });
createOAuth2OpenApiHttpHandler({ router: eitherRouter, basePath: '/api' });
createOAuth2OpenApiFetchHandler({ basePath: '/api', router: eitherRouter, req });
// The router is still inferred: its context reaches onError, and a createContext given must still build it.
createOAuth2HTTPHandler({ router: eitherRouter, onError: ({ ctx }) => expectTypeOf(ctx).toEqualTypeOf<Either | undefined>() });
oauth2FetchRequestHandler({ endpoint: '/trpc', router: eitherRouter, req, onError: ({ ctx }) => expectTypeOf(ctx).toEqualTypeOf<Either | undefined>() });
createOAuth2OpenApiHttpHandler({ router: eitherRouter, onError: ({ ctx }) => expectTypeOf(ctx).toEqualTypeOf<Either | undefined>() });
createOAuth2OpenApiFetchHandler({ endpoint: '/api', router: eitherRouter, req, onError: ({ ctx }) => expectTypeOf(ctx).toEqualTypeOf<Either | undefined>() });
// @ts-expect-error createContext must build the router's context: req is missing
createOAuth2HTTPServer({ router: eitherRouter, createContext: () => ({}) });
// @ts-expect-error createContext must build the router's context: req is missing
createOAuth2OpenApiFetchHandler({ basePath: '/api', router: eitherRouter, req, createContext: () => ({}) });

// A Fetch Request only: the faces that give one need no createContext; tRPC's standalone face, whose
// request is the Node one, does.
const fetchOnly = initTRPC.context<{ req: Request }>().meta<OpenApiMeta>().create();
const fetchOnlyRouter = fetchOnly.router({ hello: fetchOnly.procedure.query(({ ctx }) => ctx.req.url) });
oauth2FetchRequestHandler({ endpoint: '/trpc', router: fetchOnlyRouter, req });
createOAuth2OpenApiHttpHandler({ router: fetchOnlyRouter });
createOAuth2OpenApiFetchHandler({ endpoint: '/api', router: fetchOnlyRouter, req });
// @ts-expect-error createContext is required: this face's `{ req }` is an IncomingMessage, not a Request
createOAuth2HTTPHandler({ router: fetchOnlyRouter });
// @ts-expect-error createContext is required: this face's `{ req }` is an IncomingMessage, not a Request
createOAuth2HTTPServer({ router: fetchOnlyRouter });

// A Node request only: the other way round.
const nodeOnly = initTRPC.context<{ req: IncomingMessage }>().meta<OpenApiMeta>().create();
const nodeOnlyRouter = nodeOnly.router({ hello: nodeOnly.procedure.query(({ ctx }) => ctx.req.url) });
createOAuth2HTTPHandler({ router: nodeOnlyRouter });
createOAuth2HTTPServer({ router: nodeOnlyRouter });
// @ts-expect-error createContext is required: this face's `{ req }` is a Request, not an IncomingMessage
oauth2FetchRequestHandler({ endpoint: '/trpc', router: nodeOnlyRouter, req });
// @ts-expect-error createContext is required: this face's `{ req }` is a Request, not an IncomingMessage
createOAuth2OpenApiHttpHandler({ router: nodeOnlyRouter });
// @ts-expect-error createContext is required: this face's `{ req }` is a Request, not an IncomingMessage
createOAuth2OpenApiFetchHandler({ endpoint: '/api', router: nodeOnlyRouter, req });

// A context that declares nothing needs no createContext, as with tRPC's own adapters.
const bare = initTRPC.meta<OpenApiMeta>().create();
const bareRouter = bare.router({ hello: bare.procedure.query(() => 'hello') });
const empty = initTRPC.context<{}>().meta<OpenApiMeta>().create();
const emptyRouter = empty.router({ hello: empty.procedure.query(() => 'hello') });
createOAuth2HTTPHandler({ router: bareRouter });
createOAuth2HTTPServer({ router: bareRouter });
oauth2FetchRequestHandler({ endpoint: '/trpc', router: bareRouter, req });
createOAuth2OpenApiHttpHandler({ router: bareRouter });
createOAuth2OpenApiFetchHandler({ endpoint: '/api', router: bareRouter, req });
createOAuth2HTTPHandler({ router: emptyRouter });
createOAuth2HTTPServer({ router: emptyRouter });
oauth2FetchRequestHandler({ endpoint: '/trpc', router: emptyRouter, req });
createOAuth2OpenApiHttpHandler({ router: emptyRouter });
createOAuth2OpenApiFetchHandler({ endpoint: '/api', router: emptyRouter, req });

// A context that needs more than the request still needs createContext, on every face.
interface Services {
  users: Map<string, string>;
}
const withServices = initTRPC.context<Either & { services: Services }>().meta<OpenApiMeta>().create();
const servicesRouter = withServices.router({ hello: withServices.procedure.query(({ ctx }) => ctx.services.users.size) });
const services: Services = { users: new Map() };
// @ts-expect-error createContext is required: `{ req }` lacks services
createOAuth2HTTPHandler({ router: servicesRouter });
// @ts-expect-error createContext is required: `{ req }` lacks services
createOAuth2HTTPServer({ router: servicesRouter });
// @ts-expect-error createContext is required: `{ req }` lacks services
oauth2FetchRequestHandler({ endpoint: '/trpc', router: servicesRouter, req });
// @ts-expect-error createContext is required: `{ req }` lacks services
createOAuth2OpenApiHttpHandler({ router: servicesRouter });
// @ts-expect-error createContext is required: `{ req }` lacks services
createOAuth2OpenApiFetchHandler({ endpoint: '/api', router: servicesRouter, req });
// Given, it receives what it did before: tRPC's options, or the REST Node handler's own.
createOAuth2HTTPHandler({
  router: servicesRouter,
  createContext: (opts) => {
    expectTypeOf(opts).toEqualTypeOf<CreateHTTPContextOptions>();
    return { req: opts.req, services };
  },
});
oauth2FetchRequestHandler({
  endpoint: '/trpc',
  router: servicesRouter,
  req,
  createContext: (opts) => {
    expectTypeOf(opts).toEqualTypeOf<FetchCreateContextFnOptions>();
    return { req: opts.req, services };
  },
});
createOAuth2OpenApiHttpHandler({
  router: servicesRouter,
  createContext: (opts) => {
    expectTypeOf(opts).toEqualTypeOf<OAuth2OpenApiHttpContextOptions>();
    return { req: opts.req, services };
  },
});
createOAuth2OpenApiFetchHandler({
  endpoint: '/api',
  router: servicesRouter,
  req,
  createContext: (opts) => {
    expectTypeOf(opts).toEqualTypeOf<FetchCreateContextFnOptions>();
    return { req: opts.req, services };
  },
});
