/**
 * Where a reader finds the `Authorization` value of a call, on every transport tRPC serves:
 * the request's `Authorization` header (HTTP, Server-Sent Events), and the `authorization` entry
 * of the connection params a WebSocket client sent (`createWSClient({ connectionParams })`).
 * Connection params that travel in the URL (`httpSubscriptionLink`'s `?connectionParams=`)
 * never carry a credential unless the application opts in. See
 * docs/contract.md#subscriptions.
 * @module
 */
import type { TRPCError } from '@trpc/server';
import { readHeader, type HeadersLike } from './headers.js';

/** The connection-params entry a credential travels in: the header's name, with its grammar. */
const AUTHORIZATION = 'authorization';

/**
 * The part of tRPC's `TRPCRequestInfo` (what `createContext` gets as `opts.info`) the readers
 * read. An application puts it on ctx as `info` (`createContext: ({ req, info }) => ({ req, info })`)
 * for the readers to find the credential of a WebSocket connection.
 *
 * @example
 * ```ts
 * const info: RequestInfoLike = { connectionParams: { authorization: 'Bearer abc' }, url: null };
 * ```
 */
export interface RequestInfoLike {
  /** What the client sent as `connectionParams`, or `null`. */
  readonly connectionParams?: Readonly<Record<string, string | undefined>> | null;
  /** The request URL (`null` for a WebSocket message, whose params came in a message). */
  readonly url?: URL | null;
}

/** How a reader reads a call's credential: the reader's options that concern it. */
export interface CredentialSource {
  readonly getHeaders: (ctx: any) => HeadersLike | null | undefined;
  /** Accept a credential in the URL's `connectionParams` (see {@link credentialInUrlError}). */
  readonly allowCredentialInUrl: boolean;
  readonly makeCredentialInUrlError: () => TRPCError;
}

/**
 * Whether the connection params of `info` came in the URL. tRPC's HTTP adapters read them from
 * the `connectionParams` query parameter (a JSON object); its WebSocket adapter from the
 * connection's first message, its URL saying only `connectionParams=1`.
 */
function paramsFromUrl(info: RequestInfoLike): boolean {
  const query = info.url?.searchParams.get('connectionParams');
  return query != null && query !== '1';
}

/** The credential of a call, and the headers a verifier sees with it (they say the same). */
export interface CallCredential {
  readonly authorization: string | undefined;
  readonly headers: HeadersLike | null | undefined;
}

/**
 * The `Authorization` value of a call, wherever the transport carries it, or `undefined`.
 *
 * - No connection params (every query and mutation over HTTP): the header, as always.
 * - Connection params with an `authorization` entry, sent in a WebSocket message: that entry.
 *   When the upgrade request also carried a different `Authorization` header, both are read
 *   together, as a repeated header is, so that no credential is silently preferred (a verifier
 *   refuses the result).
 * - The same entry in the URL: refused (`makeCredentialInUrlError`) unless `allowCredentialInUrl`,
 *   because URLs end up in access logs, proxies and browser history.
 *
 * The headers returned are the request's, with `authorization` answering the value read, so that
 * a verifier that looks at the request sees the credential the reader verified.
 */
export function readCredential(ctx: object, source: CredentialSource): CallCredential {
  const headers = source.getHeaders(ctx);
  const header = readHeader(headers, AUTHORIZATION);
  const info = (ctx as { info?: RequestInfoLike | null }).info;
  const params = info?.connectionParams;
  // The fast path: every call without connection params (queries and mutations over HTTP).
  if (params == null || typeof params !== 'object') return { authorization: header, headers };
  const fromParams = params[AUTHORIZATION];
  if (typeof fromParams !== 'string') return { authorization: header, headers };
  if (paramsFromUrl(info!) && !source.allowCredentialInUrl) throw source.makeCredentialInUrlError();
  const authorization = header === undefined || header === fromParams ? fromParams : `${header}, ${fromParams}`;
  return { authorization, headers: { get: (name: string) => (name === AUTHORIZATION ? authorization : (readHeader(headers, name) ?? null)) } };
}
