import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { loadOrCreatePrivateJson } from '../store/private-files.js';

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

async function toSigningKey(path: string, stored: Partial<StoredKey>): Promise<SigningKey> {
  if (stored.alg !== SIGNING_ALG || typeof stored.kid !== 'string' || typeof stored.jwk?.d !== 'string') {
    throw new Error(`${path} does not hold an ${SIGNING_ALG} private key; move it away to generate a new one`);
  }
  return {
    kid: stored.kid,
    privateKey: (await importJWK(stored.jwk, SIGNING_ALG)) as CryptoKey,
    publicKey: (await importJWK(publicPart(stored.jwk), SIGNING_ALG)) as CryptoKey,
  };
}

async function generateKey(): Promise<StoredKey> {
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { alg: SIGNING_ALG, kid: await calculateJwkThumbprint(publicPart(jwk)), jwk };
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
export function loadOrCreateSigningKey(dataDir: string): Promise<SigningKey> {
  const path = join(dataDir, SIGNING_KEY_FILE);
  return loadOrCreatePrivateJson(path, (stored) => toSigningKey(path, stored as Partial<StoredKey>), generateKey);
}
