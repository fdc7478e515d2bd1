// What the REST Node handler's hooks really receive: a Fetch Request (built from the Node request),
// the Node response, and the Node request itself as `incoming`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { initTRPC } from '@trpc/server';
import type { TRPCRequestInfo } from '@trpc/server/http';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { expectTypeOf } from 'vitest';
import { createOAuth2OpenApiFetchHandler } from '../../src/adapters/fetch.js';
import { createOAuth2OpenApiHttpHandler, type OAuth2OpenApiHttpContextOptions } from '../../src/adapters/standalone.js';
import { createDocsFetchHandler, type DocsOptions } from '../../src/docs/index.js';
import { createDocsHandler, swaggerUiAssets } from '../../src/docs/node.js';

const t = initTRPC.context<{ req: Request; address: string | undefined }>().meta<OpenApiMeta>().create();
const router = t.router({ hello: t.procedure.query(({ ctx }) => ctx.address) });

createOAuth2OpenApiHttpHandler({
  router,
  basePath: '/api',
  createContext: (opts) => {
    expectTypeOf(opts).toEqualTypeOf<OAuth2OpenApiHttpContextOptions>();
    expectTypeOf(opts.req).toEqualTypeOf<Request>();
    expectTypeOf(opts.res).toEqualTypeOf<ServerResponse>();
    expectTypeOf(opts.incoming).toEqualTypeOf<IncomingMessage>();
    expectTypeOf(opts.info).toEqualTypeOf<TRPCRequestInfo>();
    return { req: opts.req, address: opts.incoming.socket.remoteAddress };
  },
  onError: ({ req }) => expectTypeOf(req).toEqualTypeOf<Request>(),
});

// A context that needs the request cannot be created without createContext.
// @ts-expect-error createContext is required when the context has required fields
createOAuth2OpenApiHttpHandler({ router });

// The context returned must be the router's.
// @ts-expect-error address is missing from the context
createOAuth2OpenApiHttpHandler({ router, createContext: ({ req }) => ({ req }) });

// @ts-expect-error a base path starts with a slash
createOAuth2OpenApiHttpHandler({ router, basePath: 'api', createContext: ({ req }) => ({ req, address: undefined }) });

// The fetch handler takes basePath, or trpc-to-openapi's endpoint, or neither.
const req = new Request('http://127.0.0.1/api/hello');
const createContext = ({ req }: { req: Request }) => ({ req, address: undefined });
expectTypeOf(createOAuth2OpenApiFetchHandler({ basePath: '/api', router, req, createContext })).toEqualTypeOf<Promise<Response>>();
expectTypeOf(createOAuth2OpenApiFetchHandler({ endpoint: '/api', router, req, createContext })).toEqualTypeOf<Promise<Response>>();

// The docs: at least one document; the fetch side needs the files of swagger-ui-dist.
const document = { openapi: '3.1.0', info: { title: 'API', version: '1' }, paths: {} };
expectTypeOf(createDocsHandler({ documents: [{ url: '/openapi.json', document }] })).toEqualTypeOf<
  (req: IncomingMessage, res: ServerResponse, next?: () => void) => boolean
>();
expectTypeOf(createDocsFetchHandler({ documents: [{ url: '/openapi.json', document }], assets: swaggerUiAssets() })).toEqualTypeOf<
  (req: Request) => Promise<Response | undefined>
>();
// @ts-expect-error no document to serve
const none: DocsOptions = { documents: [] };
// @ts-expect-error the fetch handler reads the files of swagger-ui-dist through `assets`
createDocsFetchHandler({ documents: [{ url: '/openapi.json', document }] });
// @ts-expect-error a document's url is a path
createDocsHandler({ documents: [{ url: 'openapi.json', document }] });
void none;
