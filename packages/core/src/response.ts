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
    if (answersTokenEndpoint(opts as CallsInfo)) {
      for (const [name, value] of Object.entries(TOKEN_RESPONSE_HEADERS)) {
        deleteHeader(headers, name);
        headers[name] = value;
      }
    }
    if (opts.errors.length === 0) return base.status === undefined ? { headers } : { status: base.status, headers };
    // Header names are case-insensitive (RFC 9110 §5.1): one an inner responseMeta set, in
    // whatever case, is kept.
    const given = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
    // Each header the refusals carry, with the values of every refusal of a batch, in call order.
    const refusals = new Map<string, { name: string; values: string[] }>();
    for (const error of opts.errors) {
      const cause = getOAuth2Error(error);
      if (cause === undefined) continue;
      for (const [name, value] of Object.entries(cause.headers)) {
        const key = name.toLowerCase();
        if (given.has(key)) continue;
        const seen = refusals.get(key);
        if (seen === undefined) refusals.set(key, { name, values: [value] });
        else seen.values.push(value);
      }
    }
    for (const [key, { name, values }] of refusals) {
      headers[name] = key === 'www-authenticate' && values.length > 1 ? (scopesOfAll(values) ?? values[0]!) : values[0]!;
    }
    return base.status === undefined ? { headers } : { status: base.status, headers };
  };
}

/** Removes `name` from `headers` in any case. */
function deleteHeader(headers: Record<string, unknown>, name: string): void {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) delete headers[key];
}

/** One challenge as the error factories write it: `Scheme name="value", name="value"`. */
const CHALLENGE = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)((?: [a-z_]+="[^"\\]*",?)+)$/;
const PARAM = /([a-z_]+)="([^"\\]*)"/g;

/**
 * The challenges of a batch's calls each refused for missing scopes, as one: the same challenge
 * with the union of their `scope`s, so that the client asks once for every scope the batch needs
 * (RFC 6750 §3). `undefined` unless every challenge is `insufficient_scope` in one scheme with the
 * same parameters but `scope`, as this library's factories write them: then the first call's
 * refusal is the answer's, as for refusals of different kinds.
 */
function scopesOfAll(challenges: readonly string[]): string | undefined {
  let scheme: string | undefined;
  let first: [string, string][] | undefined;
  const scopes = new Set<string>();
  for (const challenge of challenges) {
    const parsed = CHALLENGE.exec(challenge);
    if (parsed === null) return undefined;
    const params = [...parsed[2]!.matchAll(PARAM)].map(([, name, value]) => [name!, value!] as [string, string]);
    const others = params.filter(([name]) => name !== 'scope');
    if (!params.some(([name, value]) => name === 'error' && value === 'insufficient_scope')) return undefined;
    if (scheme === undefined) {
      scheme = parsed[1];
      first = params;
    } else {
      const firstOthers = first!.filter(([name]) => name !== 'scope');
      if (parsed[1] !== scheme || others.length !== firstOthers.length || others.some(([name, value], i) => firstOthers[i]![0] !== name || firstOthers[i]![1] !== value)) return undefined;
    }
    for (const [name, value] of params) if (name === 'scope') for (const scope of value.split(' ')) if (scope !== '') scopes.add(scope);
  }
  if (scopes.size === 0) return undefined;
  const scope = [...scopes].join(' ');
  const params = first!.some(([name]) => name === 'scope') ? first!.map(([name, value]): [string, string] => [name, name === 'scope' ? scope : value]) : [...first!, ['scope', scope] as [string, string]];
  return `${scheme} ${params.map(([name, value]) => `${name}="${value}"`).join(', ')}`;
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
