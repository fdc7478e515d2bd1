import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { initTRPC } from '@trpc/server';
import type { OpenAPIObject, OpenApiMeta, OpenApiNextFunction } from 'trpc-to-openapi';
import { expectTypeOf } from 'vitest';
import { SecuritySchemeConflictError, generateOAuth2OpenApiDocument, type FormMediaType } from '../../src/index.js';
import {
  createOAuth2OpenApiFetchHandler,
  oauth2FetchRequestHandler,
  refuseBodyErrors,
  rewriteFormRequest,
  type FormRequestOptions,
} from '../../src/adapters/fetch.js';
import { createOAuth2HTTPHandler, createOAuth2HTTPServer, createOAuth2OpenApiHttpHandler } from '../../src/adapters/standalone.js';

const t = initTRPC.context<{ user: string }>().meta<OpenApiMeta>().create();
const router = t.router({ hello: t.procedure.query(({ ctx }) => ctx.user) });
const req = new Request('http://127.0.0.1/api/hello');
const createContext = () => ({ user: 'alice' });

// The document is trpc-to-openapi's type.
expectTypeOf(generateOAuth2OpenApiDocument(router, { title: 't', version: '1', baseUrl: '/' })).toEqualTypeOf<OpenAPIObject>();
// @ts-expect-error the options are generateOpenApiDocument's: baseUrl is required
generateOAuth2OpenApiDocument(router, { title: 't', version: '1' });

// The REST handlers have trpc-to-openapi's shapes.
expectTypeOf(createOAuth2OpenApiFetchHandler({ endpoint: '/api', router, req, createContext })).toEqualTypeOf<Promise<Response>>();
expectTypeOf(createOAuth2OpenApiHttpHandler({ router, createContext })).toEqualTypeOf<
  (req: IncomingMessage, res: ServerResponse, next?: OpenApiNextFunction) => Promise<void>
>();
// @ts-expect-error the endpoint starts with a slash
void createOAuth2OpenApiFetchHandler({ endpoint: 'api', router, req, createContext });
// @ts-expect-error createContext must build the router's context
void createOAuth2OpenApiFetchHandler({ endpoint: '/api', router, req, createContext: () => ({ user: 1 }) });
// @ts-expect-error a router with a context needs createContext
createOAuth2OpenApiHttpHandler({ router });

// The tRPC adapter wrappers have tRPC's shapes.
expectTypeOf(oauth2FetchRequestHandler({ endpoint: '/trpc', router, req, createContext })).toEqualTypeOf<Promise<Response>>();
expectTypeOf(createOAuth2HTTPHandler({ router, createContext })).toEqualTypeOf<RequestListener>();
expectTypeOf(createOAuth2HTTPServer({ router, createContext })).toEqualTypeOf<Server>();
createOAuth2HTTPHandler({
  router,
  createContext: ({ req: incoming }) => {
    expectTypeOf(incoming).toEqualTypeOf<IncomingMessage>();
    return { user: 'alice' };
  },
});
oauth2FetchRequestHandler({
  endpoint: '/trpc',
  router,
  req,
  maxBodySize: 1_000,
  createContext: ({ req: request }) => {
    expectTypeOf(request).toEqualTypeOf<Request>();
    return { user: 'alice' };
  },
});
// @ts-expect-error createContext must build the router's context
createOAuth2HTTPServer({ router, createContext: () => ({}) });

// The building blocks.
expectTypeOf(rewriteFormRequest(req)).toEqualTypeOf<Promise<Request>>();
expectTypeOf<FormMediaType>().toEqualTypeOf<'application/x-www-form-urlencoded' | 'multipart/form-data'>();
expectTypeOf<FormRequestOptions['maxBodySize']>().toEqualTypeOf<number | null | undefined>();
// @ts-expect-error only form media types are rewritten
void rewriteFormRequest(req, { mediaTypes: ['application/json'] });
expectTypeOf(refuseBodyErrors((opts: { req: Request }) => ({ url: opts.req.url }))).toEqualTypeOf<(opts: { req: Request }) => { url: string }>();
expectTypeOf(refuseBodyErrors()({ req })).toEqualTypeOf<{ req: Request }>();

// The conflict error carries a stable code and the name at fault.
declare const conflict: SecuritySchemeConflictError;
expectTypeOf(conflict.code).toEqualTypeOf<'ERR_SECURITY_SCHEME_CONFLICT'>();
expectTypeOf(conflict.schemeName).toEqualTypeOf<string>();
expectTypeOf(conflict).toMatchTypeOf<Error>();
