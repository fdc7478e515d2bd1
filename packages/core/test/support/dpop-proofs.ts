/**
 * DPoP proofs for tests: signed with jose by a generated key, with any header or claim replaced
 * or removed, so that a test can build the one wrong proof it needs.
 */
import { SignJWT, calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { accessTokenHash } from '../../src/dpop/index.js';

export interface ProofKey {
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  readonly privateJwk: JWK;
}

/** A fresh key pair for `alg` (ES256 by default), with its public and private JWKs. */
export async function proofKey(alg = 'ES256'): Promise<ProofKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { alg, privateKey, publicJwk: await exportJWK(publicKey), privateJwk: await exportJWK(privateKey) };
}

/**
 * Two fresh ES256 keys: `key`, which tokens are bound to (its RFC 7638 thumbprint `jkt`), and
 * `other`, which they are not, with its thumbprint `otherJkt` for a token bound to the wrong key.
 */
export async function boundAndOtherKey(): Promise<{ key: ProofKey; other: ProofKey; jkt: string; otherJkt: string }> {
  const [key, other] = await Promise.all([proofKey(), proofKey()]);
  const [jkt, otherJkt] = await Promise.all([calculateJwkThumbprint(key.publicJwk, 'sha256'), calculateJwkThumbprint(other.publicJwk, 'sha256')]);
  return { key, other, jkt, otherJkt };
}

export interface ProofParts {
  method: string;
  url: string;
  accessToken?: string;
  nonce?: string;
  /** Seconds since the epoch (default: now). */
  iat?: number;
  jti?: string;
  /** Header members to set (`undefined` removes one). */
  header?: Record<string, unknown>;
  /** Claims to set (`undefined` removes one). */
  claims?: Record<string, unknown>;
  /** Sign with this key instead (the header still names `key`'s public JWK unless `header.jwk` says otherwise). */
  signer?: ProofKey;
}

/** A DPoP proof by `key` for the request `parts` describe. */
export async function signProof(key: ProofKey, parts: ProofParts): Promise<string> {
  const claims: Record<string, unknown> = {
    htm: parts.method,
    htu: parts.url,
    iat: parts.iat ?? Math.floor(Date.now() / 1000),
    jti: parts.jti ?? crypto.randomUUID(),
    ...(parts.accessToken === undefined ? {} : { ath: await accessTokenHash(parts.accessToken) }),
    ...(parts.nonce === undefined ? {} : { nonce: parts.nonce }),
    ...parts.claims,
  };
  const header: Record<string, unknown> = { typ: 'dpop+jwt', alg: key.alg, jwk: key.publicJwk, ...parts.header };
  for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
  for (const [name, value] of Object.entries(header)) if (value === undefined) delete header[name];
  return new SignJWT(claims).setProtectedHeader(header as { alg: string }).sign((parts.signer ?? key).privateKey);
}
