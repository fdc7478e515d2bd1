/**
 * Methods a target does not serve, answered 405 with the methods it does serve (RFC 9110
 * §15.5.6). Fetch's forbidden methods, with which no `Request` is built: Node's HTTP parser admits
 * them, and a bridge that builds its Fetch request lazily passes them on, so each handler answers
 * them itself, before it builds or reads a request. On the REST faces, any method no operation at
 * the path has, where operations of other methods are (a path no operation has is a 404); on the
 * tRPC faces, any method but `GET`, `POST` and `HEAD` (docs/contract.md#body-limits).
 * @module
 */
import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import { tokenErrorResponse } from '@trpc-oauth2/core/token-endpoint';
import { decodedPath, restTokenRoute, type TokenEndpointIndex } from '../adapters/token-endpoint-index.js';
import type { MetadataAnswer } from '../resource/well-known.js';

const FORBIDDEN_METHODS: ReadonlySet<string> = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * Whether `method` is one `new Request` refuses (whatever its case).
 *
 * @example
 * ```ts
 * isForbiddenMethod('trace'); // true
 * ```
 */
export function isForbiddenMethod(method: string): boolean {
  return FORBIDDEN_METHODS.has(method.toUpperCase());
}

/**
 * The refusal of a method no route serves: 405, code `METHOD_NOT_SUPPORTED`, naming it.
 *
 * @example
 * ```ts
 * methodNotSupported('TRACE').message; // 'TRACE requests are not supported'
 * ```
 */
export function methodNotSupported(method: string): TRPCError {
  return new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `${method} requests are not supported` });
}

/**
 * The REST faces' answer to a method a target does not serve: trpc-to-openapi's error body (`message`, `code`).
 *
 * @example
 * ```ts
 * new Response(methodNotSupportedBody('TRACE'), { status: 405, headers: { allow: 'GET' } });
 * ```
 */
export function methodNotSupportedBody(method: string): string {
  const error = methodNotSupported(method);
  return JSON.stringify({ message: error.message, code: error.code });
}

/** The methods a REST operation can have (trpc-to-openapi's). */
const REST_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * The methods of the REST operations at `path` (below the base path), as an `Allow` value, by
 * the REST face's own routing (`route`, trpc-to-openapi's matching); `undefined` when no
 * operation has that path.
 *
 * @example
 * ```ts
 * restMethodsAt(indexRestEndpoints(appRouter).route, '/users/me'); // 'GET, HEAD'
 * ```
 */
export function restMethodsAt(route: TokenEndpointIndex['route'], path: string): string | undefined {
  const methods: string[] = REST_METHODS.filter((method) => route(method, path) !== undefined);
  // A HEAD is answered as the path's GET (docs/contract.md#body-limits).
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return methods.length === 0 ? undefined : methods.join(', ');
}

/**
 * The REST faces' answer to a request whose method no operation at `path` (below the base path)
 * has: 405 `METHOD_NOT_SUPPORTED`, `Allow` naming the methods of the operations there (see
 * {@link restMethodsAt}); on a token or revocation endpoint's route, its no-store headers and an
 * RFC 6749 §5.2 body (`invalid_request`, naming the method) in place of trpc-to-openapi's;
 * `undefined` when no operation has that path (a 404 there, or `next`).
 *
 * @example
 * ```ts
 * restMethodRefusal(endpoints, '/token', 'GET'); // { status: 405, headers: { allow: 'POST', 'cache-control': 'no-store', … }, body }
 * ```
 */
export function restMethodRefusal(endpoints: TokenEndpointIndex, path: string, method: string): MetadataAnswer | undefined {
  const allow = restMethodsAt(endpoints.route, path);
  if (allow === undefined) return undefined;
  const headers: Record<string, string> = { 'content-type': 'application/json', allow };
  if (!restTokenRoute(endpoints, path)) return { status: 405, headers, body: methodNotSupportedBody(method) };
  // A token endpoint's every answer is not stored (RFC 6749 §5.1) and every refusal there is an
  // RFC 6749 §5.2 body, which its clients read: this one included (docs/contract.md#token-responses).
  const refusal = tokenErrorResponse(methodNotSupported(method));
  return { status: 405, headers: { ...headers, ...refusal.headers }, body: JSON.stringify(refusal.body) };
}

/**
 * Whether the tRPC faces refuse `method` themselves, before tRPC reads the request: every method
 * but `GET` and `POST` (the methods tRPC serves) and `HEAD` (tRPC's own answer). tRPC would answer
 * such a request without a `Content-Type` as a 415 (`OPTIONS`, `PUT`, `DELETE` have no body to type).
 *
 * @example
 * ```ts
 * isRefusedTrpcMethod('OPTIONS'); // true
 * ```
 */
export function isRefusedTrpcMethod(method: string): boolean {
  return method !== 'GET' && method !== 'POST' && method !== 'HEAD';
}

/**
 * The methods tRPC serves for the call (or batch) at `path` (below the base path), as an `Allow`
 * value: `GET` for queries and subscriptions (and `POST` with tRPC's `allowMethodOverride`),
 * `POST` for mutations; both when a part names no procedure this router holds loaded.
 *
 * @example
 * ```ts
 * trpcMethodsAt(appRouter, 'users.me'); // 'GET'
 * ```
 */
export function trpcMethodsAt(router: AnyTRPCRouter, path: string, allowMethodOverride = false): string {
  const procedures = router._def.procedures as Record<string, { _def?: { type?: string } } | undefined>;
  // A router's `pathSeparator` (`users~me` in URLs) names the procedure `users.me`, as tRPC reads it.
  const separator = (router._def._config as { pathSeparator?: string }).pathSeparator ?? '.';
  const methods = new Set<string>();
  const calls = decodedPath(path)?.split(',');
  if (calls === undefined) return 'GET, POST';
  for (const urlPath of calls) {
    const call = separator === '.' ? urlPath : urlPath.split(separator).join('.');
    const type = Object.hasOwn(procedures, call) ? procedures[call]?._def?.type : undefined;
    if (type === undefined) return 'GET, POST';
    if (type !== 'mutation') methods.add('GET');
    if (type === 'mutation' || allowMethodOverride) methods.add('POST');
  }
  return [...methods].join(', ');
}
