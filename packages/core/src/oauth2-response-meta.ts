import { getOAuth2Error } from './get-oauth2-error.js';

/**
 * The part of tRPC's `responseMeta` result this layer reads and writes.
 *
 * @example
 * ```ts
 * const inner = (): ResponseMetaResult => ({ headers: { 'cache-control': 'no-store' } });
 * oauth2ResponseMeta(inner);
 * ```
 */
export interface ResponseMetaResult {
  status?: number;
  headers?: Headers | Record<string, string | string[] | undefined>;
}

/**
 * A `responseMeta` for tRPC's adapters that writes each failed call's challenge headers
 * (`WWW-Authenticate`, …) onto the HTTP response. Wraps an existing `responseMeta`, if any;
 * the headers come back as a plain object, which every adapter (trpc-to-openapi included) keeps.
 *
 * @example
 * ```ts
 * createHTTPServer({ router, createContext, responseMeta: oauth2ResponseMeta() });
 * fetchRequestHandler({ endpoint: '/trpc', req, router, createContext, responseMeta: oauth2ResponseMeta() });
 * ```
 */
export function oauth2ResponseMeta<$Options extends { errors: readonly unknown[] }>(
  inner?: (opts: $Options) => ResponseMetaResult | undefined,
): (opts: $Options) => { status?: number; headers: Record<string, string | string[] | undefined> } {
  return (opts) => {
    const base = inner?.(opts) ?? {};
    const headers: Record<string, string | string[] | undefined> =
      base.headers instanceof Headers ? Object.fromEntries(base.headers) : { ...base.headers };
    for (const error of opts.errors) {
      const cause = getOAuth2Error(error);
      if (cause === undefined) continue;
      for (const [name, value] of Object.entries(cause.headers)) headers[name] ??= value;
    }
    return base.status === undefined ? { headers } : { status: base.status, headers };
  };
}
