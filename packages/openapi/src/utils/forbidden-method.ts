/**
 * The methods no route of any face serves: Fetch's forbidden methods, with which no `Request` is
 * built. Node's HTTP parser admits them, and a bridge that builds its Fetch request lazily passes
 * them on, so each handler answers them itself, before it builds or reads a request: 405 with
 * the methods the target does serve (RFC 9110 §15.5.6), or, on the REST faces, 404 for a path no
 * operation has (as for any other method there).
 * @module
 */
import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import { decodedPath, type TokenEndpointIndex } from '../adapters/token-endpoint-index.js';

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
 * The REST faces' answer to such a method: trpc-to-openapi's error body (`message`, `code`).
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
 * restMethodsAt(indexTokenEndpoints(appRouter).route, '/users/me'); // 'GET, HEAD'
 * ```
 */
export function restMethodsAt(route: TokenEndpointIndex['route'], path: string): string | undefined {
  const methods: string[] = REST_METHODS.filter((method) => route(method, path) !== undefined);
  // A HEAD is answered as the path's GET (docs/contract.md#body-limits).
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return methods.length === 0 ? undefined : methods.join(', ');
}

/**
 * The methods tRPC serves for the call (or batch) at `path` (below the base path), as an `Allow`
 * value: `GET` for queries and subscriptions, `POST` for mutations; both when a part names no
 * procedure this router holds loaded.
 *
 * @example
 * ```ts
 * trpcMethodsAt(appRouter, 'users.me'); // 'GET'
 * ```
 */
export function trpcMethodsAt(router: AnyTRPCRouter, path: string): string {
  const procedures = router._def.procedures as Record<string, { _def?: { type?: string } } | undefined>;
  const methods = new Set<string>();
  const calls = decodedPath(path)?.split(',');
  if (calls === undefined) return 'GET, POST';
  for (const call of calls) {
    const type = Object.hasOwn(procedures, call) ? procedures[call]?._def?.type : undefined;
    if (type === undefined) return 'GET, POST';
    methods.add(type === 'mutation' ? 'POST' : 'GET');
  }
  return [...methods].join(', ');
}
