import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt cost parameters. The default (N = 2^15, r = 8, p = 3: 32 MiB, a few hundred ms) is one
 * of OWASP's recommended settings; each hash records its own parameters, so they can be raised
 * later without breaking stored hashes.
 *
 * @example
 * ```ts
 * const cheap: ScryptParams = { logN: 10, r: 8, p: 1 }; // for a quick experiment only
 * ```
 */
export interface ScryptParams {
  /** log2 of the CPU/memory cost N. */
  logN: number;
  r: number;
  p: number;
}

/**
 * The parameters new hashes are made with.
 *
 * @example
 * ```ts
 * await hashPassword('wonderland', SCRYPT_DEFAULTS);
 * ```
 */
export const SCRYPT_DEFAULTS: ScryptParams = Object.freeze({ logN: 15, r: 8, p: 3 });

const SALT_BYTES = 16;
const KEY_BYTES = 32;
// PHC string format: $scrypt$ln=15,r=8,p=3$<salt>$<hash>, both in unpadded base64.
const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

const derive = (password: string, salt: Buffer, { logN, r, p }: ScryptParams) => {
  const N = 2 ** logN;
  // Node refuses by default anything above 32 MiB; scrypt needs 128 * N * r bytes, plus slack.
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
};

const b64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/**
 * Hashes a password with scrypt and a random salt, as a PHC string.
 *
 * @example
 * ```ts
 * const stored = await hashPassword('wonderland'); // '$scrypt$ln=15,r=8,p=3$…$…'
 * ```
 */
export async function hashPassword(password: string, params: ScryptParams = SCRYPT_DEFAULTS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params);
  return `$scrypt$ln=${params.logN},r=${params.r},p=${params.p}$${b64(salt)}$${b64(key)}`;
}

/**
 * Checks a password against a stored hash in constant time. A malformed stored hash is a
 * server fault, so it throws rather than answering `false`.
 *
 * @example
 * ```ts
 * await verifyPassword('wonderland', stored); // true
 * await verifyPassword('guess', stored);      // false
 * ```
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = PHC.exec(stored);
  if (match === null) throw new Error('Stored password hash is not a scrypt PHC string');
  const [, logN, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { logN: +logN, r: +r, p: +p });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
