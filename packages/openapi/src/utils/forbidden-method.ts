/**
 * The methods no route of any face serves: Fetch's forbidden methods, with which no `Request` is
 * built. Node's HTTP parser admits them, and a bridge that builds its Fetch request lazily passes
 * them on, so each handler refuses them before it builds or reads a request.
 * @module
 */
import { TRPCError } from '@trpc/server';

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
 * The REST faces' answer to such a method: trpc-to-openapi's error body (`message`, `code`), 405.
 *
 * @example
 * ```ts
 * if (isForbiddenMethod(req.method)) return new Response(methodNotSupportedBody(req.method), { status: 405 });
 * ```
 */
export function methodNotSupportedBody(method: string): string {
  const error = methodNotSupported(method);
  return JSON.stringify({ message: error.message, code: error.code });
}
