/**
 * The methods no route of any face serves: Fetch's forbidden methods, with which no `Request` is
 * built. Node's HTTP parser admits them, and a bridge that builds its Fetch request lazily passes
 * them on, so each handler answers them itself, before it builds or reads a request: 405 with
 * the methods the target does serve (RFC 9110 §15.5.6), or, on the REST faces, 404 for a path no
 * operation has (as for any other method there).
 * @module
 */
import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import { getPathRegExp, normalizePath, type OpenApiRouter } from 'trpc-to-openapi';
import { listOpenApiOperations } from '../document/openapi-operations.js';

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

/** Each router's REST operations as trpc-to-openapi matches them: a path pattern and its method. */
const restRoutes = new WeakMap<object, readonly { pattern: RegExp; method: string }[]>();

/**
 * The methods of the REST operations at `path` (below the base path), as an `Allow` value;
 * `undefined` when no operation has that path.
 *
 * @example
 * ```ts
 * restMethodsAt(appRouter, '/users/me'); // 'GET'
 * ```
 */
export function restMethodsAt(router: OpenApiRouter, path: string): string | undefined {
  let routes = restRoutes.get(router);
  if (routes === undefined) {
    routes = listOpenApiOperations(router).map(({ path: pattern, method }) => ({ pattern: getPathRegExp(pattern), method: method.toUpperCase() }));
    restRoutes.set(router, routes);
  }
  const normalized = normalizePath(path);
  const methods = new Set(routes.filter(({ pattern }) => pattern.test(normalized)).map(({ method }) => method));
  return methods.size === 0 ? undefined : [...methods].join(', ');
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
  let calls: string[];
  try {
    calls = decodeURIComponent(path).split(',');
  } catch {
    return 'GET, POST';
  }
  for (const call of calls) {
    const type = Object.hasOwn(procedures, call) ? procedures[call]?._def?.type : undefined;
    if (type === undefined) return 'GET, POST';
    methods.add(type === 'mutation' ? 'POST' : 'GET');
  }
  return [...methods].join(', ');
}
