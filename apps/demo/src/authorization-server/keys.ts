import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { loadOrCreatePrivateJson } from '../store/private-files.js';

/**
 * The algorithm the authorization server signs its JWT access tokens with, and the only one the
 * API accepts from it.
 *
 * @example
 * ```ts
 * jwtVerify(token, jwks, { algorithms: [AUTHORIZATION_SERVER_ALG] });
 * ```
 */
export const AUTHORIZATION_SERVER_ALG = 'ES256';

/**
 * The authorization server's secrets: its signing key (a private JWK with `kid`, `alg`, `use`)
 * and the keys its cookies are signed with.
 *
 * @example
 * ```ts
 * const keys: AuthorizationServerKeys = await loadOrCreateAuthorizationServerKeys('./data');
 * new Provider(issuer, { jwks: { keys: keys.signingKeys }, cookies: { keys: keys.cookieKeys } });
 * ```
 */
export interface AuthorizationServerKeys {
  signingKeys: JWK[];
  cookieKeys: string[];
}

/**
 * The file they are kept in, inside the data directory (owner-only, like the API's signing key).
 *
 * @example
 * ```ts
 * join(config.dataDir, AUTHORIZATION_SERVER_KEYS_FILE);
 * ```
 */
export const AUTHORIZATION_SERVER_KEYS_FILE = 'authorization-server-keys.json';

function toKeys(path: string, stored: Partial<AuthorizationServerKeys>): AuthorizationServerKeys {
  const usable =
    Array.isArray(stored.signingKeys) &&
    stored.signingKeys.length > 0 &&
    stored.signingKeys.every((key) => key.alg === AUTHORIZATION_SERVER_ALG && typeof key.d === 'string' && typeof key.kid === 'string') &&
    Array.isArray(stored.cookieKeys) &&
    stored.cookieKeys.length > 0 &&
    stored.cookieKeys.every((key) => typeof key === 'string' && key.length >= 32);
  if (!usable) throw new Error(`${path} does not hold the authorization server's keys; move it away to generate new ones`);
  return { signingKeys: stored.signingKeys!, cookieKeys: stored.cookieKeys! };
}

async function generateKeys(): Promise<AuthorizationServerKeys> {
  const { privateKey } = await generateKeyPair(AUTHORIZATION_SERVER_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as JWK);
  return {
    signingKeys: [{ ...jwk, kid, alg: AUTHORIZATION_SERVER_ALG, use: 'sig' }],
    cookieKeys: [randomBytes(32).toString('base64url')],
  };
}

/**
 * Loads the authorization server's keys from `dataDir`, generating and saving them (mode 0600)
 * on first start, so its tokens, sessions and cookies stay valid across restarts.
 *
 * @example
 * ```ts
 * const keys = await loadOrCreateAuthorizationServerKeys(config.dataDir);
 * ```
 */
export function loadOrCreateAuthorizationServerKeys(dataDir: string): Promise<AuthorizationServerKeys> {
  const path = join(dataDir, AUTHORIZATION_SERVER_KEYS_FILE);
  return loadOrCreatePrivateJson(path, (stored) => toKeys(path, stored as Partial<AuthorizationServerKeys>), generateKeys);
}
