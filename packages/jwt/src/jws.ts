import { compactJws, isBase64urlSegment, jsonSegment, type CompactJws, type SignatureStep } from '@trpc-oauth2/core/protocol';
import { TOKEN_REFUSALS } from './errors.js';

/**
 * Why a token is refused: one of the fixed {@link TOKEN_REFUSALS}. Thrown inside a verification
 * and turned into core's `invalidTokenError` at its edge.
 */
export class Refusal {
  constructor(readonly description: string) {}
}

/**
 * The most keys one token's signature is checked with (and a key set prepares for it): a token
 * without a `kid` is a candidate for every key of its algorithm, so a key set of thousands would
 * cost thousands of checks per forged token. Key sets hold a few keys (the current one and the
 * next, in a rotation); a token signed by a key past the first 16 of its algorithm needs a `kid`.
 */
export const MAX_CANDIDATES = 16;

/**
 * The longest `kid` a token may name (UTF-16 code units); a longer one refuses the token as
 * invalid before any key set is consulted. RFC 7515 §4.1.4 sets no length, but a key set
 * remembers the unknown `kid`s it looked for (up to 1024 of them, for their cooldown), so an
 * unbounded `kid` in an unsigned token would let anyone pin memory with it (100 forged tokens
 * with a `kid` of 900 000 characters held some 200 MiB). Real `kid`s are short: an RFC 7638 JWK
 * thumbprint is 43 characters (86 for SHA-512, about 130 as an RFC 9278 URN), a UUID 36; Google's
 * are 40, Azure's and Keycloak's 27 to 43, Okta's 43, Cognito's 44, Auth0's 22 to 54. 256 leaves
 * room for a URL or a composed name, and bounds what 1024 remembered `kid`s hold to 0.5 MiB.
 */
export const MAX_KID_LENGTH = 256;

/**
 * The longest token a verifier reads (UTF-16 code units, 64 KiB); a longer one is refused as
 * invalid before any of it is parsed. Over HTTP, Node's 16 KiB limit on a request's headers keeps
 * tokens smaller, but a token also comes in a WebSocket's connection params or a `createCaller`
 * context, which nothing bounds: its header, parsed before the signature can say anything, is a
 * client's JSON (13 MB of nested arrays held the event loop for 3.5 s). Real access tokens stay
 * far below: the largest, with group claims, are under 16 KiB, which the HTTP limit already asks.
 */
export const MAX_TOKEN_LENGTH = 64 * 1024;

/** The protected header of a JWS, as far as a verifier reads it. */
export interface JwsHeader {
  readonly alg: string;
  readonly kid?: unknown;
  readonly typ?: unknown;
  readonly [parameter: string]: unknown;
}

/**
 * Protected headers already parsed, by their base64url text: an issuer signs every token with the
 * same few headers, so most tokens skip a decode and a `JSON.parse`. Bounded: cleared when full
 * (a client sending new headers only ever costs the parse it would have cost anyway). A header
 * is the same JSON object whichever signature step decoded it (both refuse what is not UTF-8).
 */
const HEADERS = new Map<string, Record<string, unknown>>();
const MAX_HEADERS = 64;
/**
 * The longest header text kept (base64url characters). An issuer's headers are short (`alg`,
 * `typ`, `kid`: under 200); a longer one is parsed and not kept.
 */
const MAX_HEADER_LENGTH = 1024;

/**
 * The header text as a string of its own. The protected header is a slice of the token, and V8
 * keeps a slice's whole parent alive: a cached slice would keep every byte of its token (a payload
 * of megabytes, unsigned, from any client) for as long as the header stays in the cache.
 */
const ownCopy = (text: string): string => DECODER.decode(ENCODER.encode(text));
const ENCODER = new TextEncoder();
const DECODER = new TextDecoder();

/**
 * Cuts a compact JWS of at most {@link MAX_TOKEN_LENGTH} characters (with core's reading, the one
 * DPoP proofs get too) and checks its protected header, the same way whichever signature step runs: three base64url segments, a JSON object
 * header, no `crit` (this verifier understands no extension, and an unencoded payload is never a
 * JWT, RFC 7797 §7), a `kid` that is a string of at most {@link MAX_KID_LENGTH} characters when
 * there is one, and an `alg` among the pinned
 * `algorithms` (`none` never is). The key-bearing headers (`jwk`, `jku`, `x5u`, `x5c`) are never
 * read: the key comes from the verifier's options only.
 */
export function parseJws(token: string, step: SignatureStep, algorithms: ReadonlySet<string>): { jws: CompactJws; header: JwsHeader } {
  if (token.length > MAX_TOKEN_LENGTH) throw new Refusal(TOKEN_REFUSALS.invalid);
  const jws = compactJws(token);
  if (jws === undefined || !isBase64urlSegment(jws.payload) || !isBase64urlSegment(jws.signature)) throw new Refusal(TOKEN_REFUSALS.invalid);
  let header = HEADERS.get(jws.protectedHeader);
  if (header === undefined) {
    if (!isBase64urlSegment(jws.protectedHeader)) throw new Refusal(TOKEN_REFUSALS.invalid);
    header = jsonSegment(step, jws.protectedHeader);
    if (header === undefined) throw new Refusal(TOKEN_REFUSALS.invalid);
    Object.freeze(header);
    if (jws.protectedHeader.length <= MAX_HEADER_LENGTH) {
      if (HEADERS.size >= MAX_HEADERS) HEADERS.clear();
      HEADERS.set(ownCopy(jws.protectedHeader), header);
    }
  }
  if (header.crit !== undefined || header.b64 !== undefined) throw new Refusal(TOKEN_REFUSALS.invalid);
  // A `kid` is a string (RFC 7515 §4.1.4): any other would match a key set's keys as no `kid` at
  // all, or no key, depending on what was looked up before. And a short one (see MAX_KID_LENGTH).
  if (header.kid !== undefined && (typeof header.kid !== 'string' || header.kid.length > MAX_KID_LENGTH)) throw new Refusal(TOKEN_REFUSALS.invalid);
  const { alg } = header;
  if (typeof alg !== 'string' || alg === '') throw new Refusal(TOKEN_REFUSALS.invalid);
  if (!algorithms.has(alg)) throw new Refusal(TOKEN_REFUSALS.algorithm);
  return { jws, header: header as JwsHeader };
}
