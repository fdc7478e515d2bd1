/**
 * The signature step on Node (and runtimes with `node:crypto`): `crypto.verify` on a `KeyObject`
 * made once per key, synchronously on the calling thread. WebCrypto's `subtle.verify`, which jose
 * uses, runs every verification as an asynchronous job and costs about twice the signature
 * itself; this step is the floor.
 *
 * Why not fast-jwt, which also verifies with `node:crypto`: it brings its own JWS parser and
 * claim validator (other units, other error shapes), so the claims would be checked by one
 * library on Node and another elsewhere. Here only the signature primitive differs between
 * runtimes; the JWS header checks and the claim checks, of access tokens (`jwtVerifier`) and of
 * DPoP proofs (`dpopProofVerifier`), are one piece of code for both.
 * @module
 */
import {
  constants,
  createHmac,
  createPublicKey,
  createSecretKey,
  KeyObject,
  timingSafeEqual,
  verify as cryptoVerify,
  type JsonWebKey,
} from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { joseToDer } from 'ecdsa-sig-formatter';
import { assertKeyAllows, assertRsaAffordable, isCryptoKey } from './key-restrictions.js';
import type { CompactJws, KeyMaterial, SignatureStep } from './step.js';

/** How `crypto.verify` is called for one algorithm, on a key already checked to fit it. */
interface Prepared {
  /** The algorithm the key was checked to fit: verifying another with it would skip that check. */
  readonly alg: string;
  readonly hash: string | null;
  readonly key: KeyObject | { key: KeyObject; padding?: number; saltLength?: number };
  readonly hmac: boolean;
  /** An ECDSA algorithm, whose JWS signature (r ‖ s) is handed to `crypto.verify` as DER. */
  readonly ecdsa: boolean;
}

const HASH = { 256: 'sha256', 384: 'sha384', 512: 'sha512' } as const;
// RFC 7518 §3.4: the curve each ECDSA algorithm is defined on, as Node names them.
const CURVES: Readonly<Record<string, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

function keyObjectOf(key: KeyMaterial): KeyObject {
  if (key instanceof KeyObject) return key;
  if (key instanceof Uint8Array) return createSecretKey(key);
  if (isCryptoKey(key)) return KeyObject.from(key as CryptoKey);
  return createPublicKey({ key: key as JsonWebKey, format: 'jwk' });
}

function prepare(material: KeyMaterial, alg: string): Prepared {
  // The key's own restrictions first: a KeyObject made from a JWK or a CryptoKey forgets them,
  // and WebCrypto (the other step) honours them.
  assertKeyAllows(material, alg);
  const key = keyObjectOf(material);
  const family = alg.slice(0, 2);
  const bits = alg.slice(2) as '256' | '384' | '512';
  if (family === 'HS') {
    if (key.type !== 'secret') throw new TypeError(`${alg} needs a shared secret`);
    return { alg, hash: HASH[bits], key, hmac: true, ecdsa: false };
  }
  if (key.type !== 'public') throw new TypeError(`${alg} needs a public key`);
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (family === 'RS' || family === 'PS') {
    if (type !== 'rsa' && !(family === 'PS' && type === 'rsa-pss')) throw new TypeError(`${alg} needs an RSA key`);
    if ((details.modulusLength ?? 0) < 2048) throw new TypeError(`${alg} needs an RSA key of 2048 bits or more`);
    // A check's cost grows with the modulus and the exponent: a key with a larger one verifies
    // nothing (see MAX_RSA_MODULUS_BITS, MAX_RSA_EXPONENT_BITS), however it was given.
    assertRsaAffordable(key, alg);
    // RS: the bare key, whose default padding is PKCS #1 v1.5 (on Node 24 a key given as
    // `{ key, padding }` costs 12 µs more). PS: RFC 7518 §3.5, the PSS salt as long as the hash.
    if (family === 'RS') return { alg, hash: HASH[bits], key, hmac: false, ecdsa: false };
    return { alg, hash: HASH[bits], key: { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, hmac: false, ecdsa: false };
  }
  if (family === 'ES') {
    if (type !== 'ec' || details.namedCurve !== CURVES[alg]) throw new TypeError(`${alg} needs an EC key on its curve`);
    return { alg, hash: HASH[bits], key, hmac: false, ecdsa: true };
  }
  if (alg === 'EdDSA' || alg === 'Ed25519') {
    if (type !== 'ed25519') throw new TypeError(`${alg} needs an Ed25519 key`);
    return { alg, hash: null, key, hmac: false, ecdsa: false };
  }
  throw new TypeError(`${alg} is not supported`);
}

function verify(alg: string, prepared: Prepared, jws: CompactJws): boolean {
  if (prepared.alg !== alg) throw new TypeError(`a key prepared for ${prepared.alg} cannot verify ${alg}`);
  const signingInput = Buffer.from(jws.token.slice(0, jws.protectedHeader.length + 1 + jws.payload.length), 'latin1');
  const signature = Buffer.from(jws.signature, 'base64url');
  if (prepared.hmac) {
    const expected = createHmac(prepared.hash!, prepared.key as KeyObject).update(signingInput).digest();
    return expected.length === signature.length && timingSafeEqual(expected, signature);
  }
  try {
    // A JWS ECDSA signature is r ‖ s (RFC 7518 §3.4). Node reads that form with `dsaEncoding:
    // 'ieee-p1363'`, but on Node 24 that option adds 27 µs to a 62 µs ES256 check; the same
    // signature re-encoded as DER costs nothing extra on any version
    // (BENCHMARKS.md#the-runtime-node-20-against-the-current-lts).
    // `joseToDer` refuses a signature not exactly twice the curve's size, as Node's option does.
    const presented = prepared.ecdsa ? joseToDer(signature, alg) : signature;
    return cryptoVerify(prepared.hash, signingInput, prepared.key as Parameters<typeof cryptoVerify>[2], presented);
  } catch {
    return false; // a signature of the wrong length for the key
  }
}

// A leading BOM stays in the text (Buffer does not strip it), so JSON.parse refuses it, as on
// the WebCrypto step.
function text(segment: string): string | undefined {
  const bytes = Buffer.from(segment, 'base64url');
  return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}

/**
 * The `node:crypto` signature step.
 *
 * @example
 * ```ts
 * const key = signature.prepare(publicJwk, 'ES256');
 * signature.verify('ES256', key, jws); // true or false, synchronously
 * ```
 */
export const signature: SignatureStep<Prepared> = { name: 'node:crypto', prepare, text, verify };
