/**
 * trpc-to-openapi's core, made once per router for both REST handlers, with each request's hooks
 * read from the request's record.
 * @module
 */
import { createOpenApiNodeHttpHandler, type OpenApiNextFunction, type OpenApiRouter } from 'trpc-to-openapi';
import { malformedQueryError } from '../body/errors.js';
import { bodilessRequestAt } from '../body/requests.js';
import { requestState, stateOf, type RestHooks } from '../utils/request-state.js';
import { RESPONSE_META, answering, type AnswerSink } from './rest-answer.js';
import { withDecodedPathParameters } from './path-parameters.js';

/** The core as the REST handlers call it: the request, where its answer goes, and `next` (Node only). */
type Core = (request: Request, sink: AnswerSink, next?: OpenApiNextFunction) => Promise<unknown>;

/**
 * What a call of {@link restCore} given {@link reportNoOperation} as `next` resolves to when no
 * operation has the request's method and path: the core has answered nothing, and the handler
 * answers (405 where the path has operations of other methods, else the core's own 404 or `next`).
 */
export const NO_OPERATION: unique symbol = Symbol('no REST operation has this method and path');

/**
 * The `next` that has the core report a request no operation serves instead of answering it: the
 * core calls it in place of its 404, and resolves to what it returns. A constant, so a routed
 * request (the hot path) costs nothing more than before; only a miss is looked at again.
 *
 * @example
 * ```ts
 * if ((await restCore(appRouter)(request, hooks, res, reportNoOperation)) === NO_OPERATION) answerMiss();
 * ```
 */
export const reportNoOperation = (): typeof NO_OPERATION => NO_OPERATION;

/**
 * Making trpc-to-openapi's core checks the router by generating its whole OpenAPI document (unless
 * `NODE_ENV` is `production`): 2–3 ms for twenty operations, which trpc-to-openapi's own fetch
 * handler pays on every request, since it makes a core per call (BENCHMARKS.md#the-rest-fetch-face).
 * Of its options the core reads only the router and the hooks (its `maxBodySize` applies to Node
 * requests, and it is only ever given a Fetch `Request`, whose body the policy has limited), so one
 * per router serves every call, and each call's hooks travel on its request's record.
 */
const cores = new WeakMap<OpenApiRouter, Core>();

/**
 * trpc-to-openapi's core for `router` (made now, so a router it refuses throws here): it answers
 * a request with `hooks` (the handler's own, made by `oauth2Hooks`) as that request's
 * `createContext`, `onError` and `responseMeta`, writing the answer to `sink` through
 * {@link answering}. A request no operation has (by method and path) goes to `next`: with
 * {@link reportNoOperation}, the call resolves to {@link NO_OPERATION} and nothing is answered;
 * without `next`, the core answers its 404.
 *
 * @example
 * ```ts
 * await restCore(appRouter)(request, oauth2Hooks(opts), res);
 * ```
 */
export function restCore(
  router: OpenApiRouter,
): (request: Request, hooks: RestHooks, sink: AnswerSink, next?: OpenApiNextFunction | typeof reportNoOperation) => Promise<unknown> {
  const core = coreFor(router);
  return (request, hooks, sink, next) => {
    // HEAD is GET without the content (RFC 9110 §9.3.2). trpc-to-openapi routes no HEAD and
    // answers every one 204, unauthenticated, whatever the path: it is routed as the GET it asks
    // about (its security runs), and the face leaves the body out.
    if (request.method === 'HEAD') return headAsGet(core, request, hooks, sink, next);
    if (request.method !== 'GET' && request.method !== 'DELETE') {
      requestState(request).hooks = hooks;
      return core(request, answering(request, sink), next);
    }
    // The core keeps a GET's or DELETE's query on the request: one that takes no new property
    // (frozen, or a runtime's own, sealed) is routed as a copy that does, as a HEAD is.
    const routed = Object.isExtensible(request) ? request : routableCopy(request);
    requestState(routed).hooks = hooks;
    withQuery(routed);
    return core(routed, answering(routed, sink), next);
  };
}

/**
 * A HEAD through `core` as its GET. The core reads the method to route, before it calls
 * createContext or onError, which get the request back as it came (a DPoP proof names
 * `htm: HEAD`); so does whoever holds the request once the core is done.
 */
async function headAsGet(core: Core, request: Request, hooks: RestHooks, sink: AnswerSink, next?: OpenApiNextFunction): Promise<unknown> {
  // A request that takes no new property (frozen, or a runtime's own, sealed) is routed as a copy that does.
  const routed = Object.isExtensible(request) ? request : routableCopy(request);
  const state = requestState(routed);
  state.hooks = hooks;
  state.head = true;
  Object.defineProperty(routed, 'method', { value: 'GET', configurable: true });
  withQuery(routed);
  try {
    return await core(routed, answering(routed, sink), next);
  } finally {
    asItCame(routed);
  }
}

/**
 * The query of a GET or DELETE (the methods whose input the core reads from it) on `request.query`,
 * read as the core reads it (each name's values, in order), into an object with no prototype. The
 * core reads it from there when set; else it collects it into `{}` by name, where a name
 * `Object.prototype` has (`constructor`, `toString`, `__proto__`) is taken for that name's array
 * of values and throws, a 500 for a client's query. A request without a query costs one search.
 */
function withQuery(request: Request): void {
  const url = request.url;
  const start = url.indexOf('?');
  if (start === -1 || 'query' in request) return;
  // A Request's URL keeps a fragment the target carried (`?q=a#x&q=b`): it ends the query, and a
  // `?` after it (`#x?q=a`) starts none, as the URL's `searchParams` (the core's own reading) have it.
  const hash = url.indexOf('#');
  if (hash !== -1 && hash < start) return;
  const search = url.slice(start, hash === -1 ? undefined : hash);
  // An escape that is not UTF-8 would reach the input as U+FFFD: the call is refused from
  // createContext (refuseBodyErrors), through the core's error path, before the procedure runs.
  if (!isUtf8Query(search)) requestState(request).refusal ??= malformedQueryError();
  const query: Record<string, string[]> = Object.create(null);
  // From the `?` on: `URLSearchParams` drops one leading `?`, which must be the query's own, not a
  // second one that starts its first name (`??a=1` names `?a`).
  new URLSearchParams(search).forEach((value, name) => void (query[name] ??= []).push(value));
  (request as Request & { query?: unknown }).query = query;
}

/** A run of percent-escapes (`%C3%A9`): what a query encodes bytes with. */
const ESCAPES = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * Whether every run of percent-escapes in `search` decodes as UTF-8. A `%` not followed by two
 * hex digits is itself, as `URLSearchParams` reads it. One pass, and none for a query without `%`.
 */
function isUtf8Query(search: string): boolean {
  if (!search.includes('%')) return true;
  for (const [escapes] of search.matchAll(ESCAPES)) {
    try {
      decodeURIComponent(escapes);
    } catch {
      return false;
    }
  }
  return true;
}

/** A HEAD request routed as its GET reads as the HEAD it is again (the core has routed it). */
function asItCame(request: Request): void {
  const state = stateOf(request);
  if (state?.head !== true) return;
  state.head = false;
  Reflect.deleteProperty(request, 'method');
}

/** A bodiless copy of `request` (the core reads no body of a HEAD, GET or DELETE) that takes properties, with its record. */
function routableCopy(request: Request): Request {
  const copy = bodilessRequestAt(request, request.url);
  Object.assign(requestState(copy), stateOf(request));
  return copy;
}

function coreFor(router: OpenApiRouter): Core {
  let core = cores.get(router);
  if (core === undefined) {
    core = createOpenApiNodeHttpHandler({
      router: withDecodedPathParameters(router),
      // The core hands createContext and onError the request it was given, so its record is found.
      // Routed: from here on a HEAD is the HEAD it came as.
      createContext: (opts: { req: Request }) => {
        asItCame(opts.req);
        return stateOf(opts.req)!.hooks!.createContext(opts);
      },
      onError: (opts: { req: Request }) => {
        asItCame(opts.req);
        stateOf(opts.req)!.hooks!.onError(opts);
      },
      // responseMeta gets no request: its arguments reach the request's own sink as a header the
      // sink answers with that request's responseMeta (rest-answer.ts) in the same synchronous
      // step in which the core sends the answer.
      responseMeta: (opts: unknown) => ({ headers: { [RESPONSE_META]: opts } }),
    } as never) as unknown as Core;
    cores.set(router, core);
  }
  return core;
}
