import * as oauth from 'oauth4webapi';
import { httpOnLoopback } from './server-url.js';

/**
 * A DPoP key as the session file keeps it: the key pair's JWKs (the private one never leaves the
 * client; the session file is readable by its owner only).
 *
 * @example
 * ```ts
 * const stored: StoredDPoPKey = await exportDPoPKey(await oauth.generateKeyPair('ES256', { extractable: true }));
 * ```
 */
export interface StoredDPoPKey {
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
}

/** ES256: what the demo, oidc-provider and oauth4webapi all accept. */
const ES256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/**
 * A fresh DPoP key pair (ES256), extractable so the session can keep it.
 *
 * @example
 * ```ts
 * const stored = await newDPoPKey();
 * ```
 */
export async function newDPoPKey(): Promise<StoredDPoPKey> {
  const pair = await oauth.generateKeyPair('ES256', { extractable: true });
  return {
    privateJwk: await crypto.subtle.exportKey('jwk', pair.privateKey),
    publicJwk: await crypto.subtle.exportKey('jwk', pair.publicKey),
  };
}

/**
 * oauth4webapi's DPoP handle for a stored key: it signs each request's proof and remembers the
 * nonces servers send (RFC 9449 §8, §9).
 *
 * @example
 * ```ts
 * const handle = await dpopHandle(session.dpop);
 * ```
 */
export async function dpopHandle(stored: StoredDPoPKey, options?: oauth.ModifyAssertionOptions): Promise<oauth.DPoPHandle> {
  const privateKey = await crypto.subtle.importKey('jwk', stored.privateJwk, ES256, false, ['sign']);
  const publicKey = await crypto.subtle.importKey('jwk', stored.publicJwk, ES256, true, ['verify']);
  return oauth.DPoP({}, { privateKey, publicKey }, options);
}

/**
 * Runs `request` and, when the server asked for a DPoP nonce (`use_dpop_nonce`; the handle kept
 * the one it sent), once more: the second proof carries it.
 *
 * @example
 * ```ts
 * const response = await withDPoPNonce(() => oauth.refreshTokenGrantRequest(as, client, auth, token, { DPoP: handle }).then((r) => oauth.processRefreshTokenResponse(as, client, r)));
 * ```
 */
export async function withDPoPNonce<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return request();
  }
}

/**
 * A `fetch` that sends `token` as a DPoP-bound access token through oauth4webapi: a proof of the
 * request's method and URL, signed by the handle's key, and the nonce the server asked for
 * (asked again once when it wants a fresh one). Refusals are answered as responses, as `fetch`
 * does, for the tRPC client to read.
 *
 * @example
 * ```ts
 * httpLink({ url: `${baseUrl}/trpc`, fetch: dpopFetch(handle, () => session.accessToken) });
 * ```
 */
export function dpopFetch(handle: oauth.DPoPHandle, token: () => string) {
  return async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const headers = new Headers(init.headers);
    const body = (init.body ?? undefined) as oauth.ProtectedResourceRequestBody | undefined;
    const send = () =>
      oauth.protectedResourceRequest(token(), init.method ?? 'GET', url, headers, body, { DPoP: handle, signal: init.signal ?? undefined, ...httpOnLoopback(url) });
    try {
      return await withDPoPNonce(send);
    } catch (error) {
      // Any other challenge (an expired token, a missing scope) is the answer itself.
      if (error instanceof oauth.WWWAuthenticateChallengeError) return error.response;
      throw error;
    }
  };
}

/**
 * The `DPoP` proof oauth4webapi would send with `token` on a `method` request to `url`, without
 * sending anything: for a WebSocket's opening request, which has no `fetch` to wrap.
 *
 * @example
 * ```ts
 * new WebSocket(url, { headers: { dpop: await dpopProofFor(handle, token, 'GET', new URL(`${baseUrl}/trpc`)) } });
 * ```
 */
export async function dpopProofFor(handle: oauth.DPoPHandle, token: string, method: string, url: URL): Promise<string> {
  let proof: string | null = null;
  await oauth.protectedResourceRequest(token, method, url, undefined, undefined, {
    DPoP: handle,
    ...httpOnLoopback(url),
    [oauth.customFetch]: async (_url, init) => {
      proof = new Headers(init.headers).get('dpop');
      return new Response(null, { status: 204 });
    },
  });
  if (proof === null) throw new Error('oauth4webapi made no DPoP proof');
  return proof;
}

/**
 * Makes the handle hold `nonce` for `url`'s origin, as it holds one a response's `DPoP-Nonce`
 * brought: a refusal inside a stream or a socket (`data.oauth2.dpopNonce`) has no response
 * header for oauth4webapi to read, and the next proof must carry it all the same (RFC 9449 §9).
 *
 * @example
 * ```ts
 * await rememberDPoPNonce(handle, new URL(`${baseUrl}/trpc`), error.data.oauth2.dpopNonce);
 * ```
 */
export async function rememberDPoPNonce(handle: oauth.DPoPHandle, url: URL, nonce: string): Promise<void> {
  // Nothing is sent: the answer made here is only how oauth4webapi learns a nonce.
  await oauth.protectedResourceRequest('nonce', 'GET', url, undefined, undefined, {
    DPoP: handle,
    ...httpOnLoopback(url),
    [oauth.customFetch]: async () => new Response(null, { status: 204, headers: { 'dpop-nonce': nonce } }),
  });
}
