/**
 * The compact JWS serialization (RFC 7515 §7.1), read the same way by every verifier of this
 * repository whichever signature step runs: access tokens (`@trpc-oauth2/jwt`) and DPoP proofs.
 * Each caller keeps its own refusals and its own header rules; only the cutting and decoding,
 * where a lenient decoder would let a malformed token through, is here.
 * @module
 */
import type { CompactJws, SignatureStep } from './signature/step.js';

// RFC 7515 §2: base64url without padding; a length of 4n+1 is no encoding of any bytes. Node's
// base64url decoder would still decode one (dropping bits), so it is refused before any decoding.
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Whether `segment` is base64url without padding, of a length some bytes encode to, in the one
 * spelling of those bytes (the bits of no byte left clear).
 *
 * @example
 * ```ts
 * isBase64urlSegment('e30'); // true
 * isBase64urlSegment('e30=a'); // false
 * isBase64urlSegment('e31'); // false: bits of no byte set
 * ```
 */
export function isBase64urlSegment(segment: string): boolean {
  const rest = segment.length % 4;
  if (rest === 1 || !BASE64URL.test(segment)) return false;
  if (rest === 0) return true;
  // The last character carries bits of no byte (four after two characters, two after three).
  // RFC 4648 §3.5 lets a decoder refuse them set: taken, they would give one signature 16 (or 4)
  // spellings, each another token string to a deny list, a replay check or a cache.
  const last = BASE64URL_ALPHABET.indexOf(segment[segment.length - 1]!);
  return (last & (rest === 2 ? 0b1111 : 0b11)) === 0;
}

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * `token` cut at its two dots, with a non-empty protected header; `undefined` for any other
 * number of segments. The segments are not checked: see {@link isBase64urlSegment}.
 *
 * @example
 * ```ts
 * compactJws('eyJ.e30.c2ln')?.payload; // 'e30'
 * ```
 */
export function compactJws(token: string): CompactJws | undefined {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first < 1 || second < 0 || token.indexOf('.', second + 1) !== -1) return undefined;
  return { token, protectedHeader: token.slice(0, first), payload: token.slice(first + 1, second), signature: token.slice(second + 1) };
}

/** A JSON object (not an array, not null), parsed from `text`; `undefined` otherwise. */
function jsonObject(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * The JSON object a segment (already checked with {@link isBase64urlSegment}) encodes, decoded by
 * `step` as strict UTF-8, as jose does; `undefined` when it is not UTF-8, not JSON or not an object.
 *
 * @example
 * ```ts
 * jsonSegment(signature, 'e30'); // {}
 * ```
 */
export function jsonSegment(step: SignatureStep, segment: string): Record<string, unknown> | undefined {
  return jsonObject(step.text(segment));
}
