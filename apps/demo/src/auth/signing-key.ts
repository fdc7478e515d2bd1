import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';

/**
 * The one JWS algorithm this server signs with and accepts: ECDSA P-256 with SHA-256. Pinning it
 * is what refuses `alg: none` and HMAC/RSA confusion tokens.
 *
 * @example
 * ```ts
 * jwtVerify(token, key.publicKey, { algorithms: [SIGNING_ALG] });
 * ```
 */
export const SIGNING_ALG = 'ES256';

/**
 * The access-token signing key pair and its key id (the JWK thumbprint of the public key).
 *
 * @example
 * ```ts
 * const key: SigningKey = await loadOrCreateSigningKey(config.dataDir);
 * key.kid; // 'aN9k…'
 * ```
 */
export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
}

/** What `signing-key.json` holds. */
interface StoredKey {
  alg: typeof SIGNING_ALG;
  kid: string;
  jwk: JWK;
}

/**
 * The file the key is kept in, inside the data directory.
 *
 * @example
 * ```ts
 * join(config.dataDir, SIGNING_KEY_FILE);
 * ```
 */
export const SIGNING_KEY_FILE = 'signing-key.json';

const publicPart = ({ kty, crv, x, y }: JWK): JWK => ({ kty, crv, x, y });

async function readKey(path: string): Promise<SigningKey> {
  const stored = JSON.parse(await readFile(path, 'utf8')) as Partial<StoredKey>;
  if (stored.alg !== SIGNING_ALG || typeof stored.kid !== 'string' || typeof stored.jwk?.d !== 'string') {
    throw new Error(`${path} does not hold an ${SIGNING_ALG} private key; move it away to generate a new one`);
  }
  return {
    kid: stored.kid,
    privateKey: (await importJWK(stored.jwk, SIGNING_ALG)) as CryptoKey,
    publicKey: (await importJWK(publicPart(stored.jwk), SIGNING_ALG)) as CryptoKey,
  };
}

/**
 * Loads the signing key from `dataDir`, generating and saving one (owner-only file) on first
 * start, so access tokens stay valid across restarts.
 *
 * @example
 * ```ts
 * const key = await loadOrCreateSigningKey('./data');
 * ```
 */
export async function loadOrCreateSigningKey(dataDir: string): Promise<SigningKey> {
  const path = join(dataDir, SIGNING_KEY_FILE);
  try {
    return await readKey(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const stored: StoredKey = { alg: SIGNING_ALG, kid: await calculateJwkThumbprint(publicPart(jwk)), jwk };
  try {
    // 'wx': never overwrite a key another process saved in the meantime.
    await writeFile(path, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readKey(path);
}
