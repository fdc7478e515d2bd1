/**
 * The request a verifier sees ({@link VerifyRequest}), built lazily from what the adapter put on
 * ctx: most verifiers never look at it, so nothing is parsed until one does.
 * See docs/contract.md#verified-readers.
 * @module
 */
import { readHeader, type HeadersLike } from '../headers.js';
import type { VerifyRequest } from './principal.js';
import { clientUrlOf, publicOrigin, urlAtBase } from '../request-url.js';

/** What a security step knows of the call besides ctx (tRPC's middleware options). */
export interface CallInfo {
  readonly ctx: object;
  readonly type?: 'query' | 'mutation' | 'subscription' | undefined;
  readonly path?: string | undefined;
}

/** A Fetch `Request` or a Node `IncomingMessage`, as the adapters put it on `ctx.req`. */
export interface RequestLike {
  readonly method?: string;
  readonly url?: string;
  readonly headers?: unknown;
  readonly socket?: { readonly encrypted?: boolean };
}

/** The request the adapter put on ctx (`ctx.req`), when there is one. */
export const requestOnCtx = (ctx: object): RequestLike | undefined => {
  const req = (ctx as { req?: unknown }).req;
  return typeof req === 'object' && req !== null ? (req as RequestLike) : undefined;
};

/**
 * The absolute URL of the call: `origin` (when the application set one) wins over what the request
 * says of itself, and `pathPrefix` (what a proxy in front stripped off) goes before the path.
 */
function urlOf(call: CallInfo, req: RequestLike | undefined, headers: HeadersLike | null | undefined, origin: string | undefined, pathPrefix: string): string {
  const target = clientUrlOf(req);
  if (target === undefined) return urlAtBase(`${origin ?? 'http://localhost'}${pathPrefix}`, `/${call.path ?? ''}`);
  // A Fetch Request's URL is absolute; a Node request's is the request target (a path), or in
  // absolute form (RFC 9112 §3.2.2). One of another scheme (`foo://x/me`, which tRPC's Node
  // adapters route by its path) has no origin to build on: it is read as a path, as below.
  if (/^https?:\/\//i.test(target)) {
    if (origin === undefined && pathPrefix === '') return target;
    const url = new URL(target);
    return urlAtBase(`${origin ?? url.origin}${pathPrefix}`, url.pathname, url.search);
  }
  const own = origin ?? hostOrigin(req, headers);
  // The path as tRPC's Node adapters route it (a target `//other.example/me` routes to `/me`),
  // under the origin: never a host taken from the target.
  let url: URL;
  try {
    url = new URL(target, 'http://localhost');
  } catch {
    url = new URL(target.startsWith('/') ? target : `/${target}`, 'http://localhost');
  }
  return urlAtBase(`${own}${pathPrefix}`, url.pathname, url.search);
}

/**
 * `http://` (`https://` on a TLS socket) and the `Host` header, as an origin; `localhost` stands
 * for a Host header that is no host and port (none, empty, or with a path, query, fragment or
 * userinfo), whose text would otherwise put a path, a query or a fragment before the path prefix
 * and the request's path.
 */
function hostOrigin(req: RequestLike | undefined, headers: HeadersLike | null | undefined): string {
  const scheme = req?.socket?.encrypted === true ? 'https' : 'http';
  const host = readHeader(headers, 'host');
  if (host === undefined || host === '' || /[/?#@\\]/.test(host)) return `${scheme}://localhost`;
  try {
    return new URL(`${scheme}://${host}`).origin;
  } catch {
    return `${scheme}://localhost`; // a Host header no URL is built from
  }
}

/** A call's {@link VerifyRequest}: each part is worked out when a verifier first reads it. */
class CallRequest implements VerifyRequest {
  readonly #call: CallInfo;
  readonly #req: RequestLike | undefined;
  readonly #headers: HeadersLike | null | undefined;
  readonly #origin: ReaderOrigin;
  readonly #pathPrefix: string;
  #url: string | undefined;

  constructor(call: CallInfo, headers: HeadersLike | null | undefined, origin: ReaderOrigin, pathPrefix: string) {
    this.#call = call;
    this.#req = requestOnCtx(call.ctx);
    this.#headers = headers;
    this.#origin = origin;
    this.#pathPrefix = pathPrefix;
  }

  get method(): string {
    return this.#req?.method?.toUpperCase() ?? (this.#call.type === 'mutation' ? 'POST' : 'GET');
  }

  get url(): string {
    const origin = this.#origin;
    return (this.#url ??= urlOf(this.#call, this.#req, this.#headers, typeof origin === 'function' ? publicOrigin(origin(this.#call.ctx), 'origin') : origin, this.#pathPrefix));
  }

  // A property, not a method: a verifier may take `header` off the request and call it alone.
  readonly header = (name: string): string | undefined => readHeader(this.#headers, name);
}

/**
 * A reader's `origin` option: an origin, or a function of ctx giving one per request. Checked
 * where it is configured when fixed; a function's answer is checked on each call.
 */
export type ReaderOrigin = string | ((ctx: any) => string) | undefined;

/**
 * The {@link VerifyRequest} of a call. `headers` are the ones the reader read the credential from
 * (its `getHeaders`), so a verifier and the reader never disagree about a header; `pathPrefix` is
 * the reader's, already checked (`''` for none).
 */
export function verifyRequestOf(call: CallInfo, headers: HeadersLike | null | undefined, origin: ReaderOrigin, pathPrefix = ''): VerifyRequest {
  return new CallRequest(call, headers, origin, pathPrefix);
}
