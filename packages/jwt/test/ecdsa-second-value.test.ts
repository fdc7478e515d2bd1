// An ECDSA signature (r, s) verifies as (r, n − s) too (RFC 7518 §3.4 does not ask signers to
// normalise s, and they do not): every ES256/ES384/ES512 token has a second token string that
// verifies, with the same header and payload. Neither is refused; what the contract says instead
// (docs/contract.md#verified-readers) is pinned here: a deny list keys on `jti` or on the part
// before the signature, never on the token string, and cacheVerifier verifies the second string
// on its own, as an entry of its own, with the same principal.
import { generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { cacheVerifier, type JwtPrincipal } from '../src/index.js';
import { outcomeOf } from './support/refusal.js';
import { VERIFICATION_PATHS } from './support/verification-paths.js';

const ISSUER = 'https://issuer.example';
const AUDIENCE = 'https://api.example';

// The order n of each curve's group (SEC 2, FIPS 186-4 D.1.2).
const CURVES = [
  { alg: 'ES256', size: 32, n: BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551') },
  { alg: 'ES384', size: 48, n: BigInt('0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973') },
  {
    alg: 'ES512',
    size: 66,
    n: BigInt('0x01fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409'),
  },
] as const;

const toBig = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
const fromBig = (value: bigint, length: number) => Buffer.from(value.toString(16).padStart(length * 2, '0'), 'hex');

/** The token with its signature's s replaced by n − s: the same header and payload, another string. */
function twinOf(token: string, size: number, n: bigint): string {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const raw = Buffer.from(signature, 'base64url'); // r ‖ s, each `size` bytes (RFC 7518 §3.4)
  const s = toBig(raw.subarray(size));
  return `${header}.${payload}.${Buffer.concat([raw.subarray(0, size), fromBig(n - s, size)]).toString('base64url')}`;
}

/** A fresh key pair, a token it signed (`jti: 'once'`), and that token's twin of (r, n − s). */
async function signedTwins(alg: string, size: number, n: bigint) {
  const keys = await generateKeyPair(alg);
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', scope: 'me', exp: now + 600, jti: 'once' })
    .setProtectedHeader({ alg })
    .sign(keys.privateKey);
  return { keys, token, twin: twinOf(token, size, n) };
}

describe.each(VERIFICATION_PATHS)('signature checked by $name', ({ jwtVerifier }) => {
  it.each(CURVES)('$alg: the token with (r, n − s) is another string that verifies, to the same principal and jti', async ({ alg, size, n }) => {
    const { keys, token, twin } = await signedTwins(alg, size, n);
    expect(twin).not.toBe(token);
    // What a deny list keys on is the same: the header and payload, and so `jti`.
    expect(twin.slice(0, twin.lastIndexOf('.'))).toBe(token.slice(0, token.lastIndexOf('.')));

    const verify = jwtVerifier({ key: keys.publicKey, algorithms: [alg], issuer: ISSUER, audience: AUDIENCE });
    const original = await outcomeOf(verify(token));
    const second = await outcomeOf(verify(twin));
    expect(original.kind).toBe('accepted');
    expect(second.kind).toBe('accepted');
    expect((second as { principal: JwtPrincipal }).principal).toEqual((original as { principal: JwtPrincipal }).principal);
    expect((second as { principal: JwtPrincipal }).principal.claims.jti).toBe('once');
  });

  it('cacheVerifier keys on the token string: the second string is verified on its own and kept as an entry of its own', async () => {
    const { alg, size, n } = CURVES[0];
    const { keys, twin, token } = await signedTwins(alg, size, n);
    const inner = jwtVerifier({ key: keys.publicKey, algorithms: [alg], issuer: ISSUER, audience: AUDIENCE });
    const asked: string[] = [];
    const cached = cacheVerifier(
      (candidate: string) => {
        asked.push(candidate);
        return inner(candidate);
      },
      { maxEntries: 10 },
    );
    const first = await cached(token);
    expect(cached.peek!(twin)).toBeUndefined(); // not answered from the first string's entry
    const second = await cached(twin);
    expect(asked).toEqual([token, twin]); // each verified once, on its own
    expect(second).toEqual(first);
    // Each is then its own entry, answered from the cache.
    expect(cached.peek!(token)).toBe(first);
    expect(cached.peek!(twin)).toBe(second);
    await cached(token);
    await cached(twin);
    expect(asked).toEqual([token, twin]);
  });
});
