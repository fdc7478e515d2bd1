import { createPrivateKey, createPublicKey, generatePrimeSync, randomBytes, type KeyObject } from 'node:crypto';

/**
 * A 2048-bit RSA key pair whose public exponent is a random odd number of exactly `bits` bits:
 * node:crypto makes none wider than 32, and the exponent is what an RSA check's cost follows.
 */
export function rsaKeyWithExponentBits(bits: number): { privateKey: KeyObject; publicKey: KeyObject; exponentBits: number } {
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
    return { privateKey, publicKey: createPublicKey(privateKey), exponentBits: e.toString(2).length };
  }
}
