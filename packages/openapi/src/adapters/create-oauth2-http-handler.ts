/**
 * tRPC's Node handler and server with the body policy and the OAuth2 hooks: the standalone face
 * of `@trpc-oauth2/openapi/adapters/standalone`.
 * @module
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { TRPCError, type AnyTRPCRouter, type inferRouterContext } from '@trpc/server';
import { internal_exceptionHandler, type NodeHTTPCreateContextFn } from '@trpc/server/adapters/node-http';
import type { CreateHTTPHandlerOptions } from '@trpc/server/adapters/standalone';
import { bodyTooLargeError } from '../body/errors.js';
import { bodyLimit, declaredTooLarge } from '../body/limit.js';
import { batchLimit } from './batch.js';
import type { CreateContextOption } from './create-context-option.js';
import { TOKEN_TRPC_READS, TRPC_OWN_TYPES, TRPC_READS, bodyKind, decideBody, encodedBodyError, unreadTypeError, type BodyPolicy } from '../body/policy.js';
import { bodyReadBefore, bodyReadBeforeOf } from './body-read-before.js';
import { bodyReadView, clientPathnameOf, hasUsableUrl, incomingRequest, incomingView, withRepeatsJoined } from './node-request.js';
import { routerSerializer, withOAuth2Hooks } from './oauth2-hooks.js';
import { indexTokenEndpoints, trpcPathBelow, trpcTokenCall } from './token-endpoint-index.js';
import { TOKEN_RESPONSE_HEADERS } from '@trpc-oauth2/core/token-endpoint';
import type { ResourceMetadataOption } from '../resource/resource-metadata-option.js';
import { metadataResponder } from '../resource/well-known.js';
import { closeWhenBodyUnread, writeAnswer } from './node-answer.js';
import { trpcNodeHandler } from './trpc-node-handler.js';
import { pathBelow, requestPathname } from '../utils/base-path.js';
import { isRefusedTrpcMethod, methodNotSupported, trpcMethodsAt } from '../utils/forbidden-method.js';

/** `req` as tRPC's Node adapter is to read it, after the body policy: itself, or a view with the body read. */
async function decidedIncoming(given: IncomingMessage, res: ServerResponse, policy: BodyPolicy): Promise<IncomingMessage> {
  let req = given;
  const kind = bodyKind(req.method ?? 'GET', req.headers['content-type']);
  // A body a middleware read (decoded, if it had a content coding) is read as the body it was:
  // a form read into its fields as that form, bytes as they are, parsed JSON as its text, held to
  // the call's limit, not the middleware's, and on through the policy as any other. One it
  // skipped (Express 5's parsers leave `req.body` undefined over the unread stream) is read here
  // as any other; a stream it emptied is tRPC's to take (docs/contract.md#body-limits).
  const before = bodyReadBefore(req);
  if (before === 'taken') return req;
  // A GET's or a HEAD's body is read by no one, however large (the adapter builds no body for them).
  if (before !== 'unread' && kind !== 'none') {
    const read = bodyReadBeforeOf(req, policy.maxBodySize)!;
    if (read instanceof TRPCError) return incomingView(req, '{}', read);
    req = bodyReadView(req, read);
  }
  // A content coding is refused before a byte is read, tRPC's own bodies included: tRPC does not decode one either.
  const encoded = encodedBodyError(kind, req.headers['content-encoding']);
  if (encoded !== undefined) return incomingView(req, '{}', encoded);
  // A type tRPC would answer with its own 415 before it knows the calls (a token call's: see
  // `adapterReads`) is refused here, so that the refusal names the call.
  const unread = unreadTypeError(req.method ?? 'GET', req.headers['content-type'], policy);
  if (unread !== undefined) return incomingView(req, '{}', unread);
  // A body whose declared length is already over the limit is refused before a byte is read, as
  // the fetch faces refuse it: one 413 answered whole, whatever the type, a batch's or a streamed
  // call's too; tRPC would read the body up to the limit first, and answer a call that asked for
  // JSON Lines 200 with the error inside the stream (docs/contract.md#body-limits).
  if (kind !== 'none' && policy.maxBodySize !== null && declaredTooLarge(req.headers['content-length'], policy.maxBodySize)) {
    return incomingView(req, '{}', bodyTooLargeError(policy.maxBodySize));
  }
  // A body the policy does not read, tRPC reads within the same limit (its own `maxBodySize`).
  if (!policy.reads.includes(kind)) return req;
  const request = incomingRequest(req, res, policy.maxBodySize);
  // An unusable URL is the adapter's to answer.
  if (request === undefined) return req;
  const decision = await decideBody(request, policy, kind);
  if (decision.action === 'json') return incomingView(req, decision.json);
  if (decision.action === 'refuse') return incomingView(req, '{}', decision.error);
  return req;
}

/**
 * The options of {@link createOAuth2HTTPHandler} and {@link createOAuth2HTTPServer}: tRPC's
 * standalone `createHTTPHandler` options, plus the metadata to serve; `createContext` may also be
 * left out when `{ req }` with the Node request is a context of the router (see {@link CreateContextOption}).
 */
type CreateOAuth2HTTPHandlerOptions<TRouter extends AnyTRPCRouter> = Omit<CreateHTTPHandlerOptions<TRouter>, 'createContext'> &
  CreateContextOption<inferRouterContext<TRouter>, IncomingMessage, NodeHTTPCreateContextFn<TRouter, IncomingMessage, ServerResponse>> &
  ResourceMetadataOption;

/**
 * tRPC's standalone `createHTTPHandler` with the body policy and hooks every handler here shares
 * (docs/contract.md#body-limits): urlencoded bodies are accepted (tRPC alone answers them 415),
 * `multipart/form-data` stays tRPC's own (but a token or revocation call's, which the policy reads
 * as the REST faces do, and whose 415 for a type no one reads is `invalid_request`). `req` itself
 * is never changed: for a form, `ctx.req` is a view of it whose `body` is the JSON text tRPC reads.
 * With `resourceMetadata`, it answers the RFC 9728 metadata at its well-known paths. Calls are
 * answered as tRPC's adapter answers them, on a lighter request and with an unstreamed answer
 * written in one piece (see `trpcNodeHandler`).
 *
 * @example
 * ```ts
 * const trpc = createOAuth2HTTPHandler({ router: appRouter, basePath: '/trpc/', createContext: ({ req }) => ({ req }) });
 * http.createServer(trpc).listen(3000);
 * ```
 */
export function createOAuth2HTTPHandler<$Router extends AnyTRPCRouter>(opts: CreateOAuth2HTTPHandlerOptions<$Router>): RequestListener {
  const metadata = metadataResponder(opts);
  const limit = bodyLimit(opts.maxBodySize);
  const policy = { reads: TRPC_READS, maxBodySize: limit, serialize: routerSerializer(opts.router) };
  const endpoints = indexTokenEndpoints(opts.router);
  const handle = trpcNodeHandler({
    ...withOAuth2Hooks(opts),
    maxBodySize: policy.maxBodySize ?? undefined,
    maxBatchSize: batchLimit(opts.maxBatchSize),
  } as CreateHTTPHandlerOptions<$Router>);
  /**
   * An error before any call, in the router's error shape (its `errorFormatter`, its
   * transformer), reported to `onError`, as tRPC's adapter answers one; answered here because
   * through tRPC a subscription's path would answer it with a 200 stream.
   */
  const refuse = (req: IncomingMessage, res: ServerResponse, path: string | undefined, error: unknown) => {
    // A head the middleware already sent is ended as it is, as tRPC's adapter ends it.
    if (!res.headersSent) res.setHeader('content-type', 'application/json');
    internal_exceptionHandler({ ...opts, req, res, path: path ?? '' } as never)(error);
  };
  const middleware = opts.middleware as ((req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void) | undefined;
  return (req: IncomingMessage, res: ServerResponse) => {
    // A body refused unread (by the policy, by tRPC's own limit, or not read at all because the
    // answer came first: a refusal, the metadata) is not read to its end after the answer
    // (docs/contract.md#body-limits).
    closeWhenBodyUnread(req, res);
    // The path as tRPC's adapter routes it (a URL's pathname: dot segments resolved), so that no
    // spelling of a token endpoint's path escapes its own limit.
    const pathname = requestPathname(req.url ?? '/');
    // The metadata at the origin's well-known paths only: a handler mounted below a path
    // (`app.use('/trpc', …)`) matches them on the path the client asked for, the mount path included.
    const clientPathname = clientPathnameOf(req);
    const answer = clientPathname === undefined ? undefined : metadata(req.method ?? 'GET', clientPathname);
    if (answer !== undefined) return writeAnswer(res, answer);
    const path = pathBelow(pathname ?? '/', opts.basePath ?? '/');
    const call = pathname === undefined ? undefined : trpcTokenCall(endpoints, opts.basePath ?? '/', pathname, limit);
    // A token endpoint's every answer is not stored (RFC 6749 §5.1), a refusal given before tRPC
    // knows the path (a method refused here, a 415 of tRPC's) included: its responseMeta then
    // names no path to add them by.
    if (call?.tokenEndpoint === true) for (const [name, value] of Object.entries(TOKEN_RESPONSE_HEADERS)) res.setHeader(name, value);
    // A method tRPC serves nothing with (only GET and POST, and HEAD its own way): tRPC's adapter
    // would answer a TRACE with a 500 (no Fetch request is built with it) and an OPTIONS, a PUT
    // without a body with a 415. `Allow` names what the path's procedures take.
    const method = req.method ?? 'GET';
    if (isRefusedTrpcMethod(method)) {
      // The procedure path as tRPC's adapter cuts it from the URL (the base path's length off the front).
      const called = pathname === undefined ? undefined : trpcPathBelow(opts.basePath ?? '/', pathname);
      const refuseMethod = () => {
        if (!res.headersSent) res.setHeader('allow', called === undefined ? 'GET, POST' : trpcMethodsAt(opts.router, called, opts.allowMethodOverride));
        refuse(req, res, path, methodNotSupported(method));
      };
      if (middleware === undefined) return refuseMethod();
      // The middleware runs first, as on every request tRPC's adapter serves: a CORS middleware
      // answers a preflight (`OPTIONS`) there. Whatever it passes on, the method is refused, as
      // tRPC's adapter answers its own 415 before an error the middleware passed on.
      try {
        return middleware(withRepeatsJoined(req), res, refuseMethod);
      } catch (cause) {
        return refuse(req, res, path, cause);
      }
    }
    // A target or Host no URL is built from (`Host: x@evil`): tRPC's adapter would answer a 500.
    if (call === undefined || !hasUsableUrl(req)) return refuse(req, res, path, new TRPCError({ code: 'BAD_REQUEST', message: 'Invalid URL' }));
    // A token or revocation call's body is the policy's, JSON and multipart included, within its
    // endpoint's own limit when it has one, smaller or larger than tRPC's adapter-wide limit
    // (docs/contract.md#body-limits): a file part is refused as on the REST faces, and a body of
    // a type tRPC does not read either with its 415, as `invalid_request`.
    const decided = call.tokenEndpoint ? { ...policy, maxBodySize: call.maxBodySize, reads: TOKEN_TRPC_READS, adapterReads: TRPC_OWN_TYPES, singleFields: call.singleFields } : policy;
    // A repeated Content-Type reads as its values joined, for the policy and for tRPC alike, as on
    // the fetch faces (Node's `req.headers` keeps the first).
    void decidedIncoming(withRepeatsJoined(req), res, decided).then((incoming) => handle(incoming, res));
  };
}

/**
 * tRPC's standalone `createHTTPServer` around {@link createOAuth2HTTPHandler}. Call `.listen()` on it.
 *
 * @example
 * ```ts
 * createOAuth2HTTPServer({ router: appRouter, createContext: ({ req }) => ({ req }) }).listen(3000);
 * ```
 */
export function createOAuth2HTTPServer<$Router extends AnyTRPCRouter>(opts: CreateOAuth2HTTPHandlerOptions<$Router>): Server {
  return createServer(createOAuth2HTTPHandler(opts));
}
