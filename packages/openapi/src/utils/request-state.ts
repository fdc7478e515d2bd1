/**
 * The one per-request record the handlers share from entry to answer, kept on the request
 * object the adapters pass along unchanged.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TokenErrorResponse } from '@trpc-oauth2/core/token-endpoint';
import type { TRPCError } from '@trpc/server';

/**
 * What a handler of this package knows of one request beyond the request itself, in one record
 * from the handler's entry to its answer. The adapters in between (trpc-to-openapi's core, tRPC's
 * adapters) hand the request object they were given to `createContext` and `onError` as it is,
 * so that object is the key.
 */
export interface RequestState {
  /** The Node request and response a REST request was built from (the Node REST handler only). */
  node?: { readonly req: IncomingMessage; readonly res: ServerResponse };
  /** Why the body policy refused the request: `createContext` throws it before any procedure runs. */
  refusal?: TRPCError;
  /** A token endpoint's error as RFC 6749 §5.2 answers it: the REST handlers send it in place of trpc-to-openapi's body. */
  tokenError?: TokenErrorResponse;
  /** The hooks a REST request is answered with: trpc-to-openapi's core is shared by every call, so they travel with the request. */
  hooks?: RestHooks;
  /** A HEAD routed by trpc-to-openapi as its GET: the method reads `GET` until the core hands the request to `createContext` or `onError`, or is done with it. */
  head?: boolean;
}

/** A REST handler's hooks, made by `oauth2Hooks`, as trpc-to-openapi's core calls them. */
export interface RestHooks {
  createContext(opts: { req: unknown }): unknown;
  onError(opts: { req: unknown }): void;
  responseMeta(opts: never): { status?: number; headers?: unknown } | undefined;
}

/**
 * The record lives on the request itself, under a symbol no one else holds, rather than in a
 * `WeakMap` keyed by the request: a `WeakMap`'s table is in the old generation and only a full
 * collection clears its dead entries, so one entry per request would grow it with every request.
 * On the request, the record dies with it in the young generation
 * (BENCHMARKS.md#what-promotes-a-request).
 */
const STATE = Symbol('trpc-oauth2 request state');
/** The records of requests that take no new property (frozen, or a runtime's own that is sealed). */
const sealed = new WeakMap<object, RequestState>();

type WithState = { [STATE]?: RequestState };

/**
 * The record of `request`, made on first use.
 *
 * @example
 * ```ts
 * requestState(request).refusal = bodyTooLargeError(100_000);
 * ```
 */
export function requestState(request: object): RequestState {
  const known = (request as WithState)[STATE];
  if (known !== undefined) return known;
  if (!Object.isExtensible(request)) {
    let state = sealed.get(request);
    if (state === undefined) sealed.set(request, (state = {}));
    return state;
  }
  const state: RequestState = {};
  // Not enumerable: the record is not part of what the request shows. Configurable, as a view's
  // (a Proxy defining it on another object) must be.
  Object.defineProperty(request, STATE, { value: state, configurable: true });
  return state;
}

/**
 * The record of `request`, if a handler of this package made one.
 *
 * @example
 * ```ts
 * const error = stateOf(opts.req)?.refusal;
 * ```
 */
export function stateOf(request: unknown): RequestState | undefined {
  if (typeof request !== 'object' || request === null) return undefined;
  return (request as WithState)[STATE] ?? sealed.get(request);
}
