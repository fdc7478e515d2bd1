// An RSA check costs about the square of the modulus's size (a 16384-bit key some 40 checks by
// a 2048-bit one), and a key set is the authorization server's to write (a tenant's, in an API
// that trusts several). A key whose modulus is over 8192 bits verifies nothing, on every
// signature step, given as `key` or published in a key set; one of 8192 bits verifies
// (docs/contract.md#verified-readers).
import { createHash, createPublicKey, generatePrimeSync, verify as cryptoVerify, webcrypto, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_REFUSALS } from '../src/index.js';
import { outcomeOf, refusalOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';
const claims = () => ({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'read', exp: Math.floor(Date.now() / 1000) + 3600 });

const base64url = (value: bigint, bytes?: number) => {
  const hex = value.toString(16).padStart(bytes === undefined ? 0 : bytes * 2, '0');
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
};
const bitsOf = (value: bigint) => value.toString(2).length;
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
const inverse = (a: bigint, m: bigint) => {
  let [r0, r1, s0, s1] = [a % m, m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  return ((s0 % m) + m) % m;
};
const power = (base: bigint, exponent: bigint, modulus: bigint) => {
  let result = 1n;
  let square = base % modulus;
  for (let rest = exponent; rest > 0n; rest >>= 1n) {
    if (rest & 1n) result = (result * square) % modulus;
    square = (square * square) % modulus;
  }
  return result;
};

interface RsaKey {
  readonly jwk: { kty: 'RSA'; n: string; e: string };
  readonly publicKey: KeyObject;
  /** A valid access token signed RS256 (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3), with `kid` in its header when given. */
  token(kid?: string): string;
}

/**
 * An RSA key whose modulus has exactly `bits` bits, e = 65537. Made of several primes of 1024
 * bits (node:crypto takes some 40 s for one key of 8200 bits): a verifier reads only `n` and `e`,
 * and a signature made with the matching private exponent verifies as any RSA signature does.
 */
function rsaKeyOfBits(bits: number): RsaKey {
  const e = 65537n;
  const prime = (size: number) => {
    for (;;) {
      const p = generatePrimeSync(size, { bigint: true });
      if (gcd(e, p - 1n) === 1n) return p;
    }
  };
  const primes = Array.from({ length: Math.floor(bits / 1024) - 1 }, () => prime(1024));
  const partial = primes.reduce((product, p) => product * p, 1n);
  let n: bigint;
  let last: bigint;
  // The product of a P-bit and a k-bit number has P + k − 1 or P + k bits: try both sizes.
  let attempt = 0;
  do {
    last = prime(bits - bitsOf(partial) + (attempt++ % 2));
    n = partial * last;
  } while (bitsOf(n) !== bits || primes.includes(last));
  const factors = [...primes, last];
  const lambda = factors.reduce((l, p) => (l * (p - 1n)) / gcd(l, p - 1n), 1n);
  const d = inverse(e, lambda);
  // m^d mod n by the Chinese remainder theorem: one small exponentiation per prime (the whole
  // modulus's would take seconds in BigInt arithmetic).
  const powerD = (m: bigint) => {
    let result = 0n;
    let product = 1n;
    for (const p of factors) {
      const residue = power(m, d % (p - 1n), p);
      // Garner: the result so far, lifted to agree with `residue` modulo p as well.
      const step = (((residue - (result % p)) % p) + p) % p * inverse(product % p, p) % p;
      result += product * step;
      product *= p;
    }
    return result;
  };
  const size = Math.ceil(bits / 8);
  // RFC 8017 §9.2: 00 01 FF… 00, the DER DigestInfo of SHA-256, the digest.
  const digestInfo = Buffer.from('3031300d060960864801650304020105000420', 'hex');
  const jwk = { kty: 'RSA' as const, n: base64url(n), e: base64url(e) };
  return {
    jwk,
    publicKey: createPublicKey({ key: jwk, format: 'jwk' }),
    token(kid) {
      const header = { alg: 'RS256', ...(kid === undefined ? {} : { kid }) };
      const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims())).toString('base64url')}`;
      const t = Buffer.concat([digestInfo, createHash('sha256').update(input).digest()]);
      const encoded = Buffer.concat([Buffer.from([0, 1]), Buffer.alloc(size - t.length - 3, 0xff), Buffer.from([0]), t]);
      return `${input}.${base64url(powerD(BigInt(`0x${encoded.toString('hex')}`)), size)}`;
    },
  };
}

let atLimit: RsaKey;
let overLimit: RsaKey;
let usual: RsaKey;
beforeAll(() => {
  atLimit = rsaKeyOfBits(8192);
  overLimit = rsaKeyOfBits(8193);
  usual = rsaKeyOfBits(2048);
});

const servers: Server[] = [];
async function jwksServer(keys: object[]): Promise<string> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys })));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
}
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  const common = { algorithms: ['RS256'] as ['RS256'], issuer: ISSUER, audience: AUDIENCE };

  it('the keys are sound: node:crypto verifies what each signed, and their moduli have the sizes said', () => {
    expect(atLimit.publicKey.asymmetricKeyDetails?.modulusLength).toBe(8192);
    expect(overLimit.publicKey.asymmetricKeyDetails?.modulusLength).toBe(8193);
    for (const key of [atLimit, overLimit]) {
      const token = key.token();
      const cut = token.lastIndexOf('.');
      expect(cryptoVerify('sha256', Buffer.from(token.slice(0, cut)), key.publicKey, Buffer.from(token.slice(cut + 1), 'base64url'))).toBe(true);
    }
  });

  describe('a key given as key', () => {
    const forms = async (key: RsaKey) => [
      ['a JWK', key.jwk],
      ['a KeyObject', key.publicKey],
      ['a CryptoKey', await webcrypto.subtle.importKey('jwk', key.jwk, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['verify'])],
    ] as const;

    it('over 8192 bits verifies nothing, in every form: its own tokens are refused', async () => {
      for (const [form, key] of await forms(overLimit)) {
        const verify = jwtVerifier({ key: key as never, ...common });
        expect([form, await refusalOf(verify(overLimit.token()))]).toEqual([form, TOKEN_REFUSALS.invalid]);
      }
    });

    it('of 8192 bits verifies, in every form', async () => {
      for (const [form, key] of await forms(atLimit)) {
        const verify = jwtVerifier({ key: key as never, ...common });
        expect([form, (await outcomeOf(verify(atLimit.token()))).kind]).toEqual([form, 'accepted']);
      }
    });
  });

  describe('a key of a key set', () => {
    const jwkOf = (key: RsaKey, kid?: string) => ({ ...key.jwk, alg: 'RS256', use: 'sig', ...(kid === undefined ? {} : { kid }) });

    it('over 8192 bits verifies nothing: its tokens are refused, and beside a usable key without a kid it is skipped', async () => {
      const withKid = jwtVerifier({ jwksUrl: await jwksServer([jwkOf(overLimit, 'large')]), ...common });
      expect(await refusalOf(withKid(overLimit.token('large')))).toBe(TOKEN_REFUSALS.invalid);

      const withoutKid = jwtVerifier({ jwksUrl: await jwksServer([jwkOf(overLimit), jwkOf(usual)]), ...common });
      expect((await withoutKid(usual.token())).subject).toBe('alice');
      expect(await refusalOf(withoutKid(overLimit.token()))).toBe(TOKEN_REFUSALS.signature);
    });

    it('of 8192 bits verifies, with a kid and without', async () => {
      const verify = jwtVerifier({ jwksUrl: await jwksServer([jwkOf(atLimit, 'large'), jwkOf(usual)]), ...common });
      expect((await verify(atLimit.token('large'))).subject).toBe('alice');
      expect((await verify(atLimit.token())).subject).toBe('alice');
    });
  });
});
