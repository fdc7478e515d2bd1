/**
 * The signature step on runtimes without `node:crypto` (edge functions, browsers, Deno without
 * Node compatibility): jose's JWS verification through WebCrypto, asynchronous.
 * @module
 */
import { base64url, errors, flattenedVerify, type JWK } from 'jose';
import { assertKeyAllows, assertRsaAffordable } from './key-restrictions.js';
import type { CompactJws, KeyMaterial, SignatureStep } from './step.js';

// `ignoreBOM`: a leading U+FEFF stays in the text, so JSON.parse refuses it, as it does on the
// node:crypto step (a BOM is no part of a JWS's JSON, RFC 8259 §8.1); the default would strip it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const isJwk = (key: KeyMaterial): key is JWK => !(key instanceof Uint8Array) && typeof (key as { kty?: unknown }).kty === 'string';

/**
 * The JWK as jose imports it for verification: without `key_ops` and `ext`, once
 * `assertKeyAllows` has held the key to them. jose hands `key_ops` to WebCrypto as the key's
 * usages, and WebCrypto refuses a public key with any usage but `verify`: a JWK whose `key_ops`
 * name `verify` among others (a key pair's `["sign", "verify"]`, a key vault's every operation,
 * RFC 7517 §4.3) would refuse every token here and verify on the node:crypto step. And jose
 * refuses an `ext` that is not a boolean, which says nothing of verifying.
 */
function importableJwk(jwk: JWK): JWK {
  const { key_ops: _keyOps, ext: _ext, ...material } = jwk;
  return material;
}

/**
 * The WebCrypto signature step. jose imports and caches the key itself (per JWK object, so a
 * caller keeps the one object it prepared), and checks that it fits the algorithm when it
 * verifies: `verify` throws for a key that does not, and for a header whose `alg` is not `alg`.
 * `prepare` throws for a key whose own restrictions forbid `alg` (see `key-restrictions.ts`).
 *
 * @example
 * ```ts
 * await signature.verify('ES256', signature.prepare(publicJwk, 'ES256'), jws); // true or false
 * ```
 */
export const signature: SignatureStep<KeyMaterial> = {
  name: 'webcrypto',
  // The key's own restrictions are checked here, with the node:crypto step's code (jose checks
  // them too, when it verifies): both steps refuse one key for one algorithm alike.
  prepare(key, alg) {
    assertKeyAllows(key, alg);
    // jose holds an RSA key to 2048 bits at least when it verifies; the ceilings (modulus and
    // exponent) are held here, as on the node:crypto step (see MAX_RSA_MODULUS_BITS, MAX_RSA_EXPONENT_BITS).
    assertRsaAffordable(key, alg);
    return isJwk(key) ? importableJwk(key) : key;
  },
  text(segment) {
    try {
      return utf8.decode(base64url.decode(segment));
    } catch {
      return undefined;
    }
  },
  async verify(alg, key, jws: CompactJws) {
    try {
      await flattenedVerify({ protected: jws.protectedHeader, payload: jws.payload, signature: jws.signature }, key as Parameters<typeof flattenedVerify>[1], {
        algorithms: [alg],
      });
      return true;
    } catch (error) {
      if (error instanceof errors.JWSSignatureVerificationFailed) return false;
      throw error;
    }
  },
};
