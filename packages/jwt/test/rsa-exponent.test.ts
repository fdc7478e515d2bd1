// An RSA check costs about its public exponent's size: a key with a 3072-bit exponent makes one
// check cost some hundred checks with 65537. A key whose exponent is over 64 bits verifies
// nothing, given as `key` in any form (a JWK, a KeyObject, one read from PEM, a CryptoKey) as
// published in a key set, on every signature step; one of 64 bits verifies
// (docs/contract.md#verified-readers).
import { createPublicKey, sign as cryptoSign, verify as cryptoVerify, webcrypto, type KeyObject } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_REFUSALS } from '../src/index.js';
import { outcomeOf, refusalOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';
import { rsaKeyWithExponentBits } from './support/wide-rsa-key.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';
const claims = () => ({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'read', exp: Math.floor(Date.now() / 1000) + 3600 });

interface WideKey {
  readonly publicKey: KeyObject;
  readonly exponentBits: number;
  token(): string;
}

/** A key of an exponent of `bits` bits and a token it signed. */
function wideKey(bits: number): WideKey {
  const { privateKey, publicKey, exponentBits } = rsaKeyWithExponentBits(bits);
  const input = `${Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}`;
  return { publicKey, exponentBits, token: () => `${input}.${cryptoSign('sha256', Buffer.from(input), privateKey).toString('base64url')}` };
}

let wide: WideKey;
let atLimit: WideKey;
beforeAll(() => {
  wide = wideKey(65);
  atLimit = wideKey(64);
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
