// An RSA check costs about its public exponent's size: a key with a 3072-bit exponent makes one
// check cost some hundred checks with 65537. A key whose exponent is over 64 bits verifies
// nothing, given as `key` in any form (a JWK, a KeyObject, one read from PEM, a CryptoKey) as
// published in a key set, on every signature step; one of 64 bits verifies
// (docs/contract.md#verified-readers).
import { createPrivateKey, createPublicKey, generatePrimeSync, randomBytes, sign as cryptoSign, verify as cryptoVerify, webcrypto, type KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_REFUSALS } from '../src/index.js';
import { outcomeOf, refusalOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';
const claims = () => ({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'read', exp: Math.floor(Date.now() / 1000) + 3600 });

interface WideKey {
  readonly publicKey: KeyObject;
  readonly exponentBits: number;
  token(): string;
}

/** A 2048-bit RSA key pair whose public exponent is a random odd number of exactly `bits` bits. */
function rsaKeyWithExponentBits(bits: number): WideKey {
  const b64 = (value: bigint) => {
    const hex = value.toString(16);
    return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
  };
  const inverse = (a: bigint, m: bigint) => {
    let [r0, r1, s0, s1] = [a % m, m, 1n, 0n];
    while (r1 !== 0n) {
      const q = r0 / r1;
      [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
    }
    return r0 === 1n ? ((s0 % m) + m) % m : undefined;
  };
  for (;;) {
    const p = generatePrimeSync(1024, { bigint: true });
    const q = generatePrimeSync(1024, { bigint: true });
    const phi = (p - 1n) * (q - 1n);
    const random = BigInt(`0x${randomBytes(Math.ceil(bits / 8)).toString('hex')}`) & ((1n << BigInt(bits - 1)) - 1n);
    const e = (1n << BigInt(bits - 1)) | random | 1n;
    const d = inverse(e, phi);
    if (d === undefined || p === q) continue;
    const jwk = { kty: 'RSA', n: b64(p * q), e: b64(e), d: b64(d), p: b64(p), q: b64(q), dp: b64(d % (p - 1n)), dq: b64(d % (q - 1n)), qi: b64(inverse(q, p)!) };
    const privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
    const input = `${Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}`;
    return {
      publicKey: createPublicKey(privateKey),
      exponentBits: e.toString(2).length,
      token: () => `${input}.${cryptoSign('sha256', Buffer.from(input), privateKey).toString('base64url')}`,
    };
  }
}

let wide: WideKey;
let atLimit: WideKey;
beforeAll(() => {
  wide = rsaKeyWithExponentBits(65);
  atLimit = rsaKeyWithExponentBits(64);
});

/** The forms a verifier's `key` may take for one public key. */
const forms = async (key: KeyObject) => {
  const jwk = key.export({ format: 'jwk' });
  return [
    ['a JWK', jwk],
    ['a KeyObject', key],
    ['a KeyObject read from PEM', createPublicKey(key.export({ format: 'pem', type: 'spki' }))],
    ['a CryptoKey', await webcrypto.subtle.importKey('jwk', jwk, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['verify'])],
  ] as const;
};

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  const common = { algorithms: ['RS256'] as ['RS256'], issuer: ISSUER, audience: AUDIENCE };

  it('the keys are sound: node:crypto verifies what each signed, and their exponents have the sizes said', () => {
    expect([wide.exponentBits, atLimit.exponentBits]).toEqual([65, 64]);
    for (const key of [wide, atLimit]) {
      const token = key.token();
      const cut = token.lastIndexOf('.');
      expect(cryptoVerify('sha256', Buffer.from(token.slice(0, cut)), key.publicKey, Buffer.from(token.slice(cut + 1), 'base64url'))).toBe(true);
    }
  });

  it('a key given as key whose exponent is over 64 bits verifies nothing, in every form: its own tokens are refused', async () => {
    for (const [form, key] of await forms(wide.publicKey)) {
      const verify = jwtVerifier({ key: key as never, ...common });
      expect([form, await refusalOf(verify(wide.token()))]).toEqual([form, TOKEN_REFUSALS.invalid]);
    }
  });

  it('a key given as key whose exponent is 64 bits verifies, in every form', async () => {
    for (const [form, key] of await forms(atLimit.publicKey)) {
      const verify = jwtVerifier({ key: key as never, ...common });
      expect([form, (await outcomeOf(verify(atLimit.token()))).kind]).toEqual([form, 'accepted']);
    }
  });
});
