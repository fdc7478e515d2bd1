/**
 * The adapter hooks: `responseMeta` writes each refusal's challenge headers onto the HTTP
 * response, `onError` keeps the request's secrets out of an error.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { getOAuth2Error } from './errors.js';
import { responseHeaderRecord } from './headers.js';
import { getTokenEndpoint } from './token-endpoint/declaration.js';
import { TOKEN_RESPONSE_HEADERS } from './token-endpoint/token-errors.js';

/** What tRPC's adapters tell `responseMeta` of each call: its procedure (`null` when not found). */
interface CallsInfo {
  info?: { calls?: readonly { procedure?: unknown }[] } | undefined;
}

/** Whether a response answers a token or revocation endpoint: it must not be cached (RFC 6749 §5.1). */
const answersTokenEndpoint = (opts: CallsInfo) => opts.info?.calls?.some((call) => getTokenEndpoint(call.procedure) !== undefined) ?? false;

/** What an input that is not JSON is reported as, instead of the parser's own words. */
const INVALID_JSON = 'The input is not valid JSON';

/** The part of tRPC's `responseMeta` result this layer reads and writes. */
export interface ResponseMetaResult {
  status?: number;
  headers?: Headers | Record<string, string | string[] | undefined>;
}

/**
 * A `responseMeta` for tRPC's adapters that writes each failed call's challenge headers
 * (`WWW-Authenticate`, …) onto the HTTP response, and `Cache-Control: no-store` with
 * `Pragma: no-cache` onto every answer of a token or revocation endpoint built with
 * `tokenEndpoint` / `revocationEndpoint` (docs/contract.md#token-responses). Wraps an existing
 * `responseMeta`, if any; the headers come back as a plain object, which every adapter
 * (trpc-to-openapi included) keeps.
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
    const headers = responseHeaderRecord(base.headers);
    if (answersTokenEndpoint(opts as CallsInfo)) for (const [name, value] of Object.entries(TOKEN_RESPONSE_HEADERS)) headers[name] = value;
    for (const error of opts.errors) {
      const cause = getOAuth2Error(error);
      if (cause === undefined) continue;
      for (const [name, value] of Object.entries(cause.headers)) headers[name] ??= value;
    }
    return base.status === undefined ? { headers } : { status: base.status, headers };
  };
}

/**
 * Takes the request's text out of an error whose cause is a JSON `SyntaxError`: the parser's
 * message quotes the characters around the fault (`…"password": hunter2…`), and a body parser
 * may attach the whole body to its error.
 */
function redactJsonSyntaxError(error: TRPCError): void {
  const cause: unknown = error.cause;
  if (!(cause instanceof Error) || cause.name !== 'SyntaxError') return;
  const quoted = cause.message;
  if (quoted !== '' && error.stack !== undefined) error.stack = error.stack.split(quoted).join(INVALID_JSON);
  if (error.message === quoted) error.message = INVALID_JSON;
  const safeCause = new SyntaxError(INVALID_JSON);
  safeCause.stack = `SyntaxError: ${INVALID_JSON}`;
  Object.defineProperty(error, 'cause', { value: safeCause, writable: true, configurable: true, enumerable: true });
}

/**
 * An `onError` for tRPC's adapters (and trpc-to-openapi's handlers) that keeps the request's
 * secrets out of an error before anything logs or answers it. When a body or `?input=` is not
 * valid JSON, tRPC's message is the JSON parser's, which quotes the text around the fault: part
 * of a password, a client secret or a token. Such an error gets a fixed message ("The input is
 * not valid JSON"), and its stack and cause lose the quote; then `inner`, your own `onError`, is
 * called. The adapters build the error response after `onError`, so the response is fixed too.
 *
 * @example
 * ```ts
 * createHTTPServer({
 *   router,
 *   createContext,
 *   responseMeta: oauth2ResponseMeta(),
 *   onError: oauth2OnError(({ error, path }) => console.error(path, error)),
 * });
 * ```
 */
export function oauth2OnError<$Options extends { error: TRPCError }>(
  inner?: (opts: $Options) => void,
): (opts: $Options) => void {
  return (opts) => {
    redactJsonSyntaxError(opts.error);
    inner?.(opts);
  };
}
