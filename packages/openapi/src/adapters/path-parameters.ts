/**
 * Path parameters decoded, as every HTTP framework hands them to the application: trpc-to-openapi
 * 3.3 matches an operation's path on the request's percent-encoded path and hands each parameter
 * on as it is written there (`/users/al%40ice` gives `name: 'al%40ice'`), so an identifier with a
 * space, an `@` or any non-ASCII character never matched what a client encoded. The REST handlers
 * give the core a router whose caller decodes them first. See docs/contract.md#path-parameters.
 * @module
 */
import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import { createProcedureCache, forEachOpenApiProcedure, getPathParameters, normalizePath, type OpenApiRouter } from 'trpc-to-openapi';

/** The names of each operation's path parameters, by procedure path (`users.get` → `['name']`). */
type ParameterNames = ReadonlyMap<string, readonly string[]>;

/**
 * `router`, or a copy of it whose `createCaller` (all trpc-to-openapi's core calls) decodes the
 * path parameters of the procedure it is asked to call; `router` itself when no operation has a
 * path parameter, or when trpc-to-openapi decodes them already (a later version may: decoding
 * twice would read `%2541` as `A`).
 *
 * @example
 * ```ts
 * createOpenApiNodeHttpHandler({ router: withDecodedPathParameters(appRouter), … });
 * ```
 */
export function withDecodedPathParameters<TRouter extends OpenApiRouter>(router: TRouter): TRouter {
  const names = parameterNames(router);
  if (names.size === 0 || !coreLeavesParametersEncoded()) return router;
  // Every path a parameterized procedure lies below (`users`, `users.get`): the caller is followed
  // only along them, so a call of any other procedure costs one property read more than before.
  const followed = new Set<string>();
  for (const path of names.keys()) {
    const segments = path.split('.');
    for (let end = 1; end <= segments.length; end += 1) followed.add(segments.slice(0, end).join('.'));
  }
  const createCaller = (router as AnyTRPCRouter).createCaller;
  return Object.assign({}, router, {
    createCaller: (...args: Parameters<typeof createCaller>) => decodingCaller(createCaller(...args), '', names, followed),
  });
}

function parameterNames(router: OpenApiRouter): ParameterNames {
  const names = new Map<string, readonly string[]>();
  forEachOpenApiProcedure(router._def.procedures, ({ path, meta: { openapi } }) => {
    const parameters = getPathParameters(normalizePath(openapi.path));
    if (parameters.length > 0) names.set(path, parameters);
  });
  return names;
}

/**
 * Whether trpc-to-openapi's matching hands a parameter on as the path has it, asked of its own
 * matcher with one operation `/{p}` and the path `/%41`. A matcher that answers anything else (it
 * decodes, or cannot be asked) is left to do what it does: the parameters are not decoded again.
 */
function coreLeavesParametersEncoded(): boolean {
  try {
    const probe = { _def: { procedures: { probe: { _def: { type: 'query', meta: { openapi: { method: 'GET', path: '/{p}' } } } } } } };
    return createProcedureCache(probe as never)('GET', '/%41')?.pathInput.p === '%41';
  } catch {
    return false;
  }
}

/** `caller` (tRPC's caller proxy, at `prefix`) with the procedures of `names` below it called with their parameters decoded. */
function decodingCaller(caller: any, prefix: string, names: ParameterNames, followed: ReadonlySet<string>): unknown {
  return new Proxy(caller, {
    get(target, key) {
      const value = target[key];
      if (typeof key !== 'string') return value;
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (!followed.has(path)) return value;
      const parameters = names.get(path);
      if (parameters === undefined) return decodingCaller(value, path, names, followed);
      return (input: unknown, ...rest: unknown[]) => value(decodedInput(input, parameters), ...rest);
    },
  });
}

/**
 * `input` (the core's merge of the query or body and the path parameters, in which the path's
 * win) with each of `parameters` percent-decoded as a URI component: `%2F` is a `/` in the value,
 * `+` stays a `+`. A value that is not percent-encoded UTF-8 (`%E0%A4%A`, `%ZZ`) is refused with
 * 400 `BAD_REQUEST`, never read as U+FFFD, before the procedure (and its security) runs. A
 * parameter of an array schema reaches here as the core wraps it on a GET, `[value]`: its strings
 * are decoded the same way.
 */
function decodedInput(input: unknown, parameters: readonly string[]): unknown {
  if (typeof input !== 'object' || input === null) return input;
  // A spread, not Object.assign: a `__proto__` key of the query stays a key, not a prototype.
  const decoded: Record<string, unknown> = { ...input };
  for (const name of parameters) {
    const value = decoded[name];
    if (typeof value === 'string') decoded[name] = decodedParameter(name, value);
    else if (Array.isArray(value)) decoded[name] = value.map((item: unknown) => (typeof item === 'string' ? decodedParameter(name, item) : item));
  }
  return decoded;
}

/** `value` of the parameter `name`, percent-decoded; a 400 `BAD_REQUEST` when it is not percent-encoded UTF-8. */
function decodedParameter(name: string, value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new TRPCError({ code: 'BAD_REQUEST', message: `Path parameter "${name}" is not percent-encoded UTF-8` });
  }
}
