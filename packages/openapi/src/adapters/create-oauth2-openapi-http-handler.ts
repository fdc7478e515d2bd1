/**
 * trpc-to-openapi's Node handler with the body policy, the OAuth2 hooks and RFC 6749 §5.2
 * answers for token endpoints: the REST face for node:http.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError, type inferRouterContext } from '@trpc/server';
import type { HTTPErrorHandler, TRPCRequestInfo } from '@trpc/server/http';
import type { CreateOpenApiHttpHandlerOptions, OpenApiNextFunction, OpenApiRouter } from 'trpc-to-openapi';
import { bodyLimit } from '../body/limit.js';
import type { CreateContextOption } from './create-context-option.js';
import { REST_READS, applyBodyPolicy, bodyKind } from '../body/policy.js';
import { refusedRequest, withClientUrl } from '../body/requests.js';
import { NOT_FOUND_BODY, pathBelow, requestPathname, urlBelow } from '../utils/base-path.js';
import { requestState, stateOf } from '../utils/request-state.js';
import { bodyReadBeforeOf } from './body-read-before.js';
import { bodyReadView, clientPathnameOf, clientUrlOfIncoming, incomingRequest } from './node-request.js';
import { isForbiddenMethod, restMethodRefusal, restMethodsAt } from '../utils/forbidden-method.js';
import { oauth2Hooks } from './oauth2-hooks.js';
import type { AnswerSink } from './rest-answer.js';
import { NO_OPERATION, reportNoOperation, restCore } from './rest-core.js';
import { restTokenEndpoint, singleFieldsOf, type TokenEndpointIndex } from './token-endpoint-index.js';
import { indexRestEndpoints } from './rest-routes.js';
import type { ResourceMetadataOption } from '../resource/resource-metadata-option.js';
import { metadataResponder } from '../resource/well-known.js';
import { closeWhenBodyUnread, writeAnswer } from './node-answer.js';

/**
 * What `createContext` of {@link createOAuth2OpenApiHttpHandler} receives: the Fetch `Request`
 * trpc-to-openapi reads (built from the Node request, its path below `basePath`), the Node
 * response, tRPC's request info, and the Node request itself as `incoming` (for its socket).
 */
export interface OAuth2OpenApiHttpContextOptions {
  /** The request trpc-to-openapi reads: a Fetch `Request` built from `incoming`. */
  req: Request;
  res: ServerResponse;
  info: TRPCRequestInfo;
  /** The Node request `req` was built from. */
  incoming: IncomingMessage;
}

/**
 * The options of {@link createOAuth2OpenApiHttpHandler}: trpc-to-openapi's
 * `createOpenApiHttpHandler` options, typed as the handler calls them (`createContext` and
 * `onError` receive a Fetch `Request`, not an `IncomingMessage`), plus where it is mounted;
 * `createContext` may also be left out when `{ req }` with that Fetch `Request` is a context of
 * the router (see {@link CreateContextOption}).
 */
export type CreateOAuth2OpenApiHttpHandlerOptions<TRouter extends OpenApiRouter> = Omit<
  CreateOpenApiHttpHandlerOptions<TRouter>,
  'createContext' | 'onError'
> &
  CreateContextOption<
    inferRouterContext<TRouter>,
    Request,
    (opts: OAuth2OpenApiHttpContextOptions) => inferRouterContext<TRouter> | Promise<inferRouterContext<TRouter>>
  > &
  ResourceMetadataOption & {
    /** Called with each error; `req` is the Fetch `Request` the handler read. */
    onError?: HTTPErrorHandler<TRouter, Request>;
    /**
     * Where the REST routes are mounted, e.g. `/api`: stripped from the path (at a segment
     * boundary) before an operation's path is matched. A path outside it goes to `next` when
     * given, else is a 404 `NOT_FOUND`; so does a path no operation has, its body unread
     * (docs/contract.md#body-limits). `req.url` itself is never changed.
     */
    basePath?: `/${string}`;
  };

/**
 * What `createContext` receives: the Node request and response, from the record of the Request
 * they were built into. A literal with every key, not a spread with added ones, which gives each
 * request's object a hidden class of its own (BENCHMARKS.md#what-promotes-a-request).
 *
 * @example
 * ```ts
 * createContext(nodeContextOptions({ req: request, info }));
 * ```
 */
export function nodeContextOptions(o: { req: Request; info: TRPCRequestInfo }): OAuth2OpenApiHttpContextOptions {
  const node = stateOf(o.req)!.node!;
  return { req: o.req, res: node.res, info: o.info, incoming: node.req };
}

const answer = (res: ServerResponse, status: number, body: string) => {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(body);
};

const BAD_URL_BODY = JSON.stringify({ message: 'Invalid URL', code: 'BAD_REQUEST' });

/**
 * trpc-to-openapi's Node handler (`createOpenApiHttpHandler`, for `http.createServer`) with the
 * body policy and hooks every handler here shares (docs/contract.md#body-limits), answering as
 * {@link createOAuth2OpenApiFetchHandler} does. `req` itself is never changed: `createContext`
 * receives the Fetch `Request` built from it (the Node request as `incoming`). `basePath` is
 * stripped before routes are matched; `next`, when given, is called for paths that are not REST
 * routes.
 * With `resourceMetadata`, it answers the RFC 9728 metadata at its well-known paths, outside `basePath`.
 *
 * @example
 * ```ts
 * const rest = createOAuth2OpenApiHttpHandler({ router: appRouter, basePath: '/api', createContext: ({ req }) => ({ req }) });
 * http.createServer((req, res) => rest(req, res)).listen(3000);
 * ```
 */
export function createOAuth2OpenApiHttpHandler<$Router extends OpenApiRouter>(
  opts: CreateOAuth2OpenApiHttpHandlerOptions<$Router>,
): (req: IncomingMessage, res: ServerResponse, next?: OpenApiNextFunction) => Promise<void> {
  const createContext = opts.createContext as ((opts: OAuth2OpenApiHttpContextOptions) => unknown) | undefined;
  const hooks = oauth2Hooks({
    ...opts,
    createContext: createContext && ((o: { req: Request; info: TRPCRequestInfo }) => createContext(nodeContextOptions(o))),
  });
  const handle = restCore(opts.router);
  const endpoints = indexRestEndpoints(opts.router);
  const limit = bodyLimit(opts.maxBodySize);
  const metadata = metadataResponder(opts);
  const serve = async (req: IncomingMessage, res: ServerResponse, next?: OpenApiNextFunction): Promise<void> => {
    // A body refused unread is not read to its end after the answer either (docs/contract.md#body-limits).
    const keepConnection = closeWhenBodyUnread(req, res);
    const pathname = requestPathname(req.url ?? '/');
    // A target no URL resolves from (`//`) is refused as tRPC refuses it.
    if (pathname === undefined) return answer(res, 400, BAD_URL_BODY);
    // The metadata is at the origin's well-known path, outside any base path (RFC 9728 §3.1): the
    // path the client asked for, the mount path Express or Connect cut off included.
    const clientPathname = clientPathnameOf(req);
    const served = clientPathname === undefined ? undefined : metadata(req.method ?? 'GET', clientPathname);
    if (served !== undefined) return writeAnswer(res, served);
    // A token endpoint's own limit and fields, from its route below the base path (a path outside it is refused below).
    const below = pathBelow(pathname, opts.basePath);
    const endpoint = below === undefined ? undefined : restTokenEndpoint(endpoints, req.method ?? 'GET', below);
    const maxBodySize = endpoint?.maxBodySize ?? limit;
    // A method no Fetch `Request` is built with (trpc-to-openapi's handler reads one): 405 where
    // operations are, naming their methods; elsewhere what any method gets there.
    if (isForbiddenMethod(req.method ?? 'GET')) {
      const refusal = below === undefined ? undefined : restMethodRefusal(endpoints, below, req.method ?? '');
      if (refusal === undefined) return next ? handedOn(keepConnection, next) : answer(res, 404, NOT_FOUND_BODY);
      return writeAnswer(res, refusal);
    }
    // A request `next` is to serve goes there before its Request is built: building one starts
    // reading the body, and the handler after this one (an upload route, another API) would find
    // it consumed. Only a handler given `next` (mounted by Connect or Express) pays this lookup.
    if (next !== undefined && (below === undefined || !hasOperationAt(endpoints.route, below, req.method ?? 'GET'))) return handedOn(keepConnection, next);
    // A body a middleware read is read as the body it was, held to the same limit as one read
    // here, not to the middleware's (docs/contract.md#body-limits); a GET's, a HEAD's or a
    // DELETE's, which trpc-to-openapi does not read, is left as one it did not read.
    // Only a request a middleware left a `body` on is looked at: the hot path (no parser) pays one `in`.
    const read = 'body' in req && bodyKind(req.method ?? 'GET', req.headers['content-type']) !== 'none' ? bodyReadBeforeOf(req, maxBodySize) : undefined;
    const incoming = incomingRequest(read === undefined ? req : bodyReadView(req, read instanceof TRPCError ? '' : read), res, maxBodySize);
    if (incoming === undefined) return answer(res, 400, BAD_URL_BODY);
    const url = urlBelow(incoming.url, opts.basePath);
    if (url === undefined) return next ? handedOn(keepConnection, next) : answer(res, 404, NOT_FOUND_BODY);
    // The one Request trpc-to-openapi reads: at the path below the base path, with the body as the
    // policy decided, marked with the URL the client used (the mount path Express or Connect cut off included).
    const policed =
      read instanceof TRPCError
        ? refusedRequest(incoming, read, url)
        : await applyBodyPolicy(incoming, { reads: REST_READS, maxBodySize, refusesJsonLike: true, singleFields: singleFieldsOf(endpoint) }, url);
    const request = withClientUrl(policed, clientUrlOfIncoming(req, incoming.url));
    requestState(request).node = { req, res };
    // A routed request is answered by the core; only one no operation has is looked at again.
    if ((await handle(request, hooks, res as AnswerSink, reportNoOperation)) !== NO_OPERATION) return;
    // The path has operations of other methods: 405 naming them (RFC 9110 §15.5.6). A HEAD is
    // what its GET gets. Else a path no operation has: `next`, or trpc-to-openapi's 404.
    const refusal = restMethodRefusal(endpoints, new URL(request.url).pathname, req.method ?? '');
    if (refusal !== undefined) return writeAnswer(res, refusal);
    if (next) return handedOn(keepConnection, next);
    await handle(request, hooks, res as AnswerSink);
  };
  // An answer Node refuses to write (a header value with CR/LF or beyond Latin-1, from the
  // application's responseMeta or an error's headers) is a fault of the server: 500, as tRPC's
  // adapters and the fetch runtimes answer it, never a rejection that ends the process.
  return async (req, res, next) => {
    try {
      await serve(req, res, next);
    } catch (error) {
      if (res.headersSent) return void res.destroy(error as Error);
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      answer(res, 500, INTERNAL_ERROR_BODY);
    }
  };
}

/**
 * Hands a request on to `next`, whose it is from then on, its body and connection too: the
 * handler no longer closes the connection of a body left unread (its lingering listener would
 * take the chunks the next handler reads). See docs/contract.md#body-limits.
 */
function handedOn(keepConnection: () => void, next: OpenApiNextFunction): void {
  keepConnection();
  return next();
}

/**
 * Whether an operation at `path` (below the base path) takes `method` (a HEAD: its GET), or the
 * path has operations of other methods (a 405 there, not `next`'s): the core's own matching.
 */
function hasOperationAt(route: TokenEndpointIndex['route'], path: string, method: string): boolean {
  return route(method === 'HEAD' ? 'GET' : method, path) !== undefined || restMethodsAt(route, path) !== undefined;
}

const INTERNAL_ERROR_BODY = JSON.stringify({ message: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
