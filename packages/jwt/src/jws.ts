import { TOKEN_REFUSALS } from './errors.js';
import type { CompactJws, SignatureStep } from './signature/step.js';

/**
 * Why a token is refused: one of the fixed {@link TOKEN_REFUSALS}. Thrown inside a verification
 * and turned into core's `invalidTokenError` at its edge.
 */
export class Refusal {
  constructor(readonly description: string) {}
}

/** The protected header of a JWS, as far as a verifier reads it. */
export interface JwsHeader {
  readonly alg: string;
  readonly kid?: unknown;
  readonly typ?: unknown;
  readonly [parameter: string]: unknown;
}

// RFC 7515 §2: base64url without padding; a length of 4n+1 is no encoding of any bytes.
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const isSegment = (segment: string) => segment.length % 4 !== 1 && BASE64URL.test(segment);

/**
 * Protected headers already parsed, by their base64url text: an issuer signs every token with the
 * same few headers, so most tokens skip a decode and a `JSON.parse`. Bounded: cleared when full
 * (a client sending new headers only ever costs the parse it would have cost anyway). A header
 * is the same JSON object whichever signature step decoded it (both refuse what is not UTF-8).
 */
const HEADERS = new Map<string, Record<string, unknown>>();
const MAX_HEADERS = 64;

/** A JSON object (not an array, not null), parsed from `text`; `undefined` otherwise. */
export function jsonObject(text: string | undefined): Record<string, unknown> | undefined {
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
 * Cuts a compact JWS and checks its protected header, the same way whichever signature step runs:
 * three base64url segments, a JSON object header, no `crit` (this verifier understands no
 * extension, and an unencoded payload is never a JWT, RFC 7797 §7), and an `alg` among the pinned
 * `algorithms` (`none` never is). The key-bearing headers (`jwk`, `jku`, `x5u`, `x5c`) are never
 * read: the key comes from the verifier's options only.
 */
export function parseJws(token: string, step: SignatureStep, algorithms: ReadonlySet<string>): { jws: CompactJws; header: JwsHeader } {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first < 1 || second < 0 || token.indexOf('.', second + 1) !== -1) throw new Refusal(TOKEN_REFUSALS.invalid);
  const jws: CompactJws = {
    token,
    protectedHeader: token.slice(0, first),
    payload: token.slice(first + 1, second),
    signature: token.slice(second + 1),
  };
  if (!isSegment(jws.payload) || !isSegment(jws.signature)) throw new Refusal(TOKEN_REFUSALS.invalid);
  let header = HEADERS.get(jws.protectedHeader);
  if (header === undefined) {
    if (!isSegment(jws.protectedHeader)) throw new Refusal(TOKEN_REFUSALS.invalid);
    header = jsonObject(step.text(jws.protectedHeader));
    if (header === undefined) throw new Refusal(TOKEN_REFUSALS.invalid);
    if (HEADERS.size >= MAX_HEADERS) HEADERS.clear();
    HEADERS.set(jws.protectedHeader, Object.freeze(header));
  }
  if (header.crit !== undefined || header.b64 !== undefined) throw new Refusal(TOKEN_REFUSALS.invalid);
  const { alg } = header;
  if (typeof alg !== 'string' || alg === '') throw new Refusal(TOKEN_REFUSALS.invalid);
  if (!algorithms.has(alg)) throw new Refusal(TOKEN_REFUSALS.algorithm);
  return { jws, header: header as JwsHeader };
}
