// The node:crypto step calls `crypto.verify` in the forms Node checks at its cheapest (on Node 24
// the others cost 12–27 µs more): an ECDSA signature re-encoded from r ‖ s (RFC 7518 §3.4) to DER,
// and RS* on the bare key, whose default padding is PKCS #1 v1.5. Whatever the bytes, ECDSA must
// decide exactly as Node's own `dsaEncoding: 'ieee-p1363'` reading does (the oracle), over valid
// signatures, signatures with a byte changed, r or s with leading zero bytes or the high bit set,
// all-zero halves, and lengths around the right one; and RS* and PS* never take each other's.
import { constants, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { signature } from '#signature';
import { compactJws } from '../../src/jws/compact.js';

const CURVES = [
  { alg: 'ES256', curve: 'prime256v1', hash: 'sha256', size: 32 },
  { alg: 'ES384', curve: 'secp384r1', hash: 'sha384', size: 48 },
  { alg: 'ES512', curve: 'secp521r1', hash: 'sha512', size: 66 },
] as const;

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');

/** A compact JWS with `rs` as its signature, over a header naming `alg` and `payload`. */
function jwsOf(alg: string, payload: string, rs: Uint8Array) {
  const signingInput = `${b64(JSON.stringify({ alg }))}.${b64(payload)}`;
  return { signingInput, token: `${signingInput}.${b64(rs)}` };
}

/** What Node itself decides about `rs` read as r ‖ s: the oracle. */
function oracle(hash: string, key: KeyObject, signingInput: string, rs: Uint8Array): boolean {
  try {
    return verify(hash, Buffer.from(signingInput, 'latin1'), { key, dsaEncoding: 'ieee-p1363' }, rs);
  } catch {
    return false;
  }
}

describe.each(CURVES)('$alg: the DER re-encoding decides as Node reading r ‖ s does', ({ alg, curve, hash, size }) => {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: curve });
  let prepared: Awaited<ReturnType<typeof signature.prepare>>;
  beforeAll(async () => {
    prepared = await signature.prepare(publicKey, alg);
  });
  const decide = (payload: string, rs: Uint8Array) => {
    const { signingInput, token } = jwsOf(alg, payload, rs);
    const jws = compactJws(token)!;
    return { ours: signature.verify(alg, prepared, jws), node: oracle(hash, publicKey, signingInput, rs) };
  };
  const signed = (payload: string) => sign(hash, Buffer.from(jwsOf(alg, payload, new Uint8Array()).signingInput, 'latin1'), { key: privateKey, dsaEncoding: 'ieee-p1363' });

  it('accepts every valid signature, as Node does', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (payload) => {
        expect(decide(payload, signed(payload))).toEqual({ ours: true, node: true });
      }),
      { numRuns: 60 },
    );
  });

  it('refuses a valid signature with one byte changed, or moved to another payload, as Node does', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), fc.nat({ max: 2 * size - 1 }), fc.integer({ min: 1, max: 255 }), (payload, at, delta) => {
        const rs = Buffer.from(signed(payload));
        rs[at] = (rs[at]! + delta) & 0xff;
        expect(decide(payload, rs)).toEqual({ ours: false, node: false });
        expect(decide(`${payload}.`, signed(payload))).toEqual({ ours: false, node: false });
      }),
      { numRuns: 60 },
    );
  });

  it('decides as Node on r and s with leading zeros, the high bit set, or all zero', () => {
    const half = fc.oneof(
      fc.uint8Array({ minLength: size, maxLength: size }),
      fc.uint8Array({ minLength: 0, maxLength: size }).map((tail) => Buffer.concat([Buffer.alloc(size - tail.length), tail])),
      fc.uint8Array({ minLength: size - 1, maxLength: size - 1 }).map((tail) => Buffer.concat([Buffer.from([0x80 | (tail[0] ?? 0)]), tail])),
      fc.constant(Buffer.alloc(size)),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), half, half, (payload, r, s) => {
        const { ours, node } = decide(payload, Buffer.concat([r, s]));
        expect(ours).toBe(node);
        expect(ours).toBe(false); // no forged signature verifies
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a signature that is not exactly twice the curve size, valid halves included', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 50 }), fc.integer({ min: -3, max: 3 }).filter((delta) => delta !== 0), (payload, delta) => {
        const valid = signed(payload);
        const rs = delta < 0 ? valid.subarray(0, valid.length + delta) : Buffer.concat([valid, Buffer.alloc(delta)]);
        expect(decide(payload, rs)).toEqual({ ours: false, node: false });
      }),
      { numRuns: 60 },
    );
    for (const length of [0, 1, size, 2 * size - 1, 2 * size + 1, 4 * size]) {
      expect(decide('x', Buffer.alloc(length, 0x7f)), `${length} bytes`).toEqual({ ours: false, node: false });
    }
  });
});

describe('RSA: RS* on the bare key (PKCS #1 v1.5), PS* with PSS', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const signedAs = (alg: 'RS256' | 'PS256', payload: string) => {
    const { signingInput } = jwsOf(alg, payload, new Uint8Array());
    const options = alg === 'RS256' ? { key: privateKey, padding: constants.RSA_PKCS1_PADDING } : { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
    return jwsOf(alg, payload, sign('sha256', Buffer.from(signingInput, 'latin1'), options)).token;
  };
  const prepared = new Map<string, Awaited<ReturnType<typeof signature.prepare>>>();
  beforeAll(async () => {
    for (const alg of ['RS256', 'PS256']) prepared.set(alg, await signature.prepare(publicKey, alg));
  });
  const check = (alg: 'RS256' | 'PS256', token: string) => signature.verify(alg, prepared.get(alg)!, compactJws(token)!);

  it('verifies each form by its own algorithm only', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), (payload) => {
        expect(check('RS256', signedAs('RS256', payload))).toBe(true);
        expect(check('PS256', signedAs('PS256', payload))).toBe(true);
        // The header names the algorithm the key was prepared for; the signature is the other's.
        const [, , psSignature] = signedAs('PS256', payload).split('.');
        const [rsHead, rsBody, rsSignature] = signedAs('RS256', payload).split('.');
        expect(check('RS256', `${rsHead}.${rsBody}.${psSignature}`)).toBe(false);
        const [psHead, psBody] = signedAs('PS256', payload).split('.');
        expect(check('PS256', `${psHead}.${psBody}.${rsSignature}`)).toBe(false);
      }),
      { numRuns: 30 },
    );
  });
});
