/**
 * RFC 6749 §2.3.1's HTTP Basic client credentials, both ways: the token endpoint decodes what a
 * client sent, a verifier that calls an authorization server encodes its own. One copy of the
 * rules (form-encode each part, then RFC 7617 base64) keeps the two sides in step.
 * @module
 */

/** RFC 4648 base64 with padding, as RFC 7617 requires for the Basic credential. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The UTF-8 text of a strict base64 string (checked with {@link BASE64} first), or `undefined`
 * when the bytes are not UTF-8. `atob` and `TextDecoder` run on every runtime (no `Buffer`).
 */
const decodeBase64Utf8 = (encoded: string): string | undefined => {
  const binary = atob(encoded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
};

/** RFC 6749 §2.3.1 encodes each part with application/x-www-form-urlencoded before base64. */
const formEncode = (part: string) => new URLSearchParams({ v: part }).toString().slice(2);
const formDecode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));

/**
 * The credential of `Authorization: Basic <credential>` for a client (RFC 6749 §2.3.1): each
 * part form-encoded, joined by `:`, then base64. Form-encoding leaves ASCII only, so `btoa`
 * takes it on every runtime.
 *
 * @example
 * ```ts
 * fetch(url, { headers: { authorization: `Basic ${encodeBasicCredentials('api', 's3cret')}` } });
 * ```
 */
export function encodeBasicCredentials(clientId: string, clientSecret: string): string {
  return btoa(`${formEncode(clientId)}:${formEncode(clientSecret)}`);
}

/**
 * The client id and secret of a Basic credential, or `undefined` when it is malformed: not
 * strict base64, not UTF-8, no `:` after a non-empty id, or a part that does not form-decode.
 */
export function decodeBasicCredentials(encoded: string): { clientId: string; clientSecret: string } | undefined {
  if (encoded === '' || !BASE64.test(encoded)) return undefined;
  const decoded = decodeBase64Utf8(encoded);
  const colon = decoded?.indexOf(':') ?? -1;
  if (decoded === undefined || colon <= 0 || decoded.includes('\uFFFD')) return undefined;
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}
