/**
 * What a key itself says it may verify, checked by both signature steps before they use it, so
 * that one key is refused or accepted for one algorithm alike on every runtime: a JWK's `alg`,
 * `use` and `key_ops` (RFC 7517 §4.2–4.4), a CryptoKey's algorithm and usages (what WebCrypto
 * would enforce, and jose checks, on the WebCrypto step). A `KeyObject` and a secret's bytes
 * carry no such restriction. Like `step.ts` and `web.ts`, a leaf that imports nothing of Node.
 * @module
 */
import type { KeyMaterial } from './step.js';

/** The WebCrypto algorithm a CryptoKey must have been imported for to verify each JWS `alg` (as jose names them). */
const CRYPTO_KEY_ALGORITHMS: Readonly<Record<string, { name: string; hash?: string; namedCurve?: string }>> = {
  HS256: { name: 'HMAC', hash: 'SHA-256' },
  HS384: { name: 'HMAC', hash: 'SHA-384' },
  HS512: { name: 'HMAC', hash: 'SHA-512' },
  RS256: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
  RS384: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-384' },
  RS512: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-512' },
  PS256: { name: 'RSA-PSS', hash: 'SHA-256' },
  PS384: { name: 'RSA-PSS', hash: 'SHA-384' },
  PS512: { name: 'RSA-PSS', hash: 'SHA-512' },
  ES256: { name: 'ECDSA', namedCurve: 'P-256' },
  ES384: { name: 'ECDSA', namedCurve: 'P-384' },
  ES512: { name: 'ECDSA', namedCurve: 'P-521' },
  EdDSA: { name: 'Ed25519' },
  Ed25519: { name: 'Ed25519' },
};

/**
 * The largest RSA modulus a key may have to verify a signature, in bits. RFC 7518 §3.3 sets only
 * the floor (2048), and an RSA check costs about the square of the modulus's size: on Node 20 a
 * 2048-bit key checks a signature in some 45 µs, an 8192-bit one in 0.43 ms, a 16384-bit one in
 * 1.7 ms. The key comes from an authorization server's key set (a tenant's, in an API that
 * trusts several), and a forged token is checked with it, up to 16 times for a token without a
 * `kid`. 8192 bits is twice the 4096 of the largest keys in common use, and keeps one check
 * within ten times a 2048-bit one.
 */
export const MAX_RSA_MODULUS_BITS = 8192;

/**
 * The widest RSA public exponent a key may have to verify a signature, in bits. An RSA check
 * costs about the exponent's size: with a 3072-bit exponent one check took some hundred times
 * what it takes with 65537 (17 bits), the exponent every issuer uses. Nothing bounds it in RFC
 * 7518, and a key given to a verifier (a tenant's, in an API that trusts several) or published
 * in a key set would make every forged token cost that much. 64 bits is what OpenSSL itself
 * allows beside a modulus over 3072 bits.
 */
export const MAX_RSA_EXPONENT_BITS = 64;

/** The number of bits of a big-endian unsigned integer (leading zero bytes not counted). */
function bitLength(bytes: Uint8Array): number {
  let first = 0;
  while (first < bytes.length && bytes[first] === 0) first++;
  return first === bytes.length ? 0 : (bytes.length - first - 1) * 8 + (32 - Math.clz32(bytes[first]!));
}

/** The bytes of a base64url string (without padding); `undefined` when it is not base64url. */
function base64urlBytes(text: string): Uint8Array | undefined {
  if (!/^[\w-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/').padEnd(Math.ceil(text.length / 4) * 4, '='));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/**
 * The size of an RSA key's modulus in bits, as each form says it: a JWK's `n`, a CryptoKey's
 * `algorithm.modulusLength`, a `KeyObject`'s `asymmetricKeyDetails.modulusLength`. `undefined`
 * for a key that is not RSA, or does not say.
 */
export function rsaModulusBits(key: KeyMaterial): number | undefined {
  if (key instanceof Uint8Array) return undefined;
  const jwk = key as { kty?: unknown; n?: unknown };
  if (typeof jwk.kty === 'string') {
    if (jwk.kty !== 'RSA' || typeof jwk.n !== 'string') return undefined;
    const modulus = base64urlBytes(jwk.n);
    return modulus === undefined ? undefined : bitLength(modulus);
  }
  const modulusLength =
    (key as { algorithm?: { modulusLength?: unknown } }).algorithm?.modulusLength ??
    (key as { asymmetricKeyDetails?: { modulusLength?: unknown } }).asymmetricKeyDetails?.modulusLength;
  return typeof modulusLength === 'number' ? modulusLength : undefined;
}

/**
 * The size of an RSA key's public exponent in bits, as each form says it: a JWK's `e`, a
 * CryptoKey's `algorithm.publicExponent` (big-endian bytes), a `KeyObject`'s
 * `asymmetricKeyDetails.publicExponent` (a bigint). `undefined` for a key that is not RSA, or
 * does not say.
 */
export function rsaExponentBits(key: KeyMaterial): number | undefined {
  if (key instanceof Uint8Array) return undefined;
  const jwk = key as { kty?: unknown; e?: unknown };
  if (typeof jwk.kty === 'string') {
    if (jwk.kty !== 'RSA' || typeof jwk.e !== 'string') return undefined;
    const exponent = base64urlBytes(jwk.e);
    return exponent === undefined ? undefined : bitLength(exponent);
  }
  const bytes = (key as { algorithm?: { publicExponent?: unknown } }).algorithm?.publicExponent;
  if (bytes instanceof Uint8Array) return bitLength(bytes);
  const value = (key as { asymmetricKeyDetails?: { publicExponent?: unknown } }).asymmetricKeyDetails?.publicExponent;
  return typeof value === 'bigint' && value > 0n ? value.toString(2).length : undefined;
}

/**
 * Throws a `TypeError` for an RSA key whose modulus is over {@link MAX_RSA_MODULUS_BITS} or whose
 * public exponent is over {@link MAX_RSA_EXPONENT_BITS}: such a key verifies nothing, whatever it
 * signed (as one under 2048 bits). Both steps check it when they prepare a key, however it was
 * given (a verifier's own key as a JWK, a CryptoKey or a KeyObject, or a key set's).
 */
export function assertRsaAffordable(key: KeyMaterial, alg: string): void {
  const bits = rsaModulusBits(key);
  if (bits !== undefined && bits > MAX_RSA_MODULUS_BITS) throw new TypeError(`${alg} takes an RSA key of ${MAX_RSA_MODULUS_BITS} bits at most`);
  const exponentBits = rsaExponentBits(key);
  if (exponentBits !== undefined && exponentBits > MAX_RSA_EXPONENT_BITS) throw new TypeError(`${alg} takes an RSA key whose public exponent is ${MAX_RSA_EXPONENT_BITS} bits at most`);
}

interface CryptoKeyLike {
  readonly type: string;
  readonly algorithm: { readonly name?: unknown; readonly hash?: { readonly name?: unknown }; readonly namedCurve?: unknown };
  readonly usages: readonly string[];
}

const tagOf = (key: object): unknown => (key as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];

/** A CryptoKey, whichever realm made it (a WebCrypto polyfill's included: it has the shape). */
export function isCryptoKey(key: KeyMaterial): boolean {
  return tagOf(key) === 'CryptoKey' || (typeof (key as CryptoKeyLike).algorithm === 'object' && typeof (key as CryptoKeyLike).type === 'string' && Array.isArray((key as CryptoKeyLike).usages));
}

/**
 * Throws a `TypeError` when `key` says it may not verify `alg`: a JWK whose `alg` is another, whose
 * `use` is present and not `sig`, or whose `key_ops` is present and lacks `verify`; a CryptoKey
 * imported for another algorithm, hash or curve, or whose usages lack `verify`.
 */
export function assertKeyAllows(key: KeyMaterial, alg: string): void {
  if (key instanceof Uint8Array || tagOf(key) === 'KeyObject') return;
  if (isCryptoKey(key)) assertCryptoKeyAllows(key as unknown as CryptoKeyLike, alg);
  else assertJwkAllows(key as { alg?: unknown; use?: unknown; key_ops?: unknown }, alg);
}

function assertJwkAllows(jwk: { alg?: unknown; use?: unknown; key_ops?: unknown }, alg: string): void {
  if (jwk.alg !== undefined && jwk.alg !== alg) throw new TypeError(`a JWK for ${String(jwk.alg)} cannot verify ${alg}`);
  if (jwk.use !== undefined && jwk.use !== 'sig') throw new TypeError('a JWK whose use is not sig cannot verify a signature');
  if (jwk.key_ops !== undefined && !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))) {
    throw new TypeError('a JWK whose key_ops lack verify cannot verify a signature');
  }
}

function assertCryptoKeyAllows(key: CryptoKeyLike, alg: string): void {
  const expected = CRYPTO_KEY_ALGORITHMS[alg];
  const { algorithm } = key;
  const fits =
    expected !== undefined &&
    algorithm.name === expected.name &&
    (expected.hash === undefined || algorithm.hash?.name === expected.hash) &&
    (expected.namedCurve === undefined || algorithm.namedCurve === expected.namedCurve);
  if (!fits) throw new TypeError(`a CryptoKey for ${String(algorithm.name)} cannot verify ${alg}`);
  if (!key.usages.includes('verify')) throw new TypeError('a CryptoKey whose usages lack verify cannot verify a signature');
}
