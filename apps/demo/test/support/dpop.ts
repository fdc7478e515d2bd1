import { SignJWT, base64url, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

/** A DPoP key pair for tests. */
export interface DPoPKey {
  privateKey: CryptoKey;
  jwk: JWK;
}

/** A fresh ES256 DPoP key. */
export async function dpopKey(): Promise<DPoPKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: await exportJWK(publicKey) };
}

/** A DPoP proof (RFC 9449 §4.2) by `key` for `method` and `url`, with `ath` for `accessToken` and `nonce` when given. */
export async function dpopProof(
  key: DPoPKey,
  method: string,
  url: string,
  extra: { accessToken?: string; nonce?: string; iat?: number } = {},
): Promise<string> {
  const ath = extra.accessToken === undefined
    ? undefined
    : base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(extra.accessToken))));
  return new SignJWT({ htm: method, htu: url, jti: crypto.randomUUID(), iat: extra.iat ?? Math.floor(Date.now() / 1000), ath, nonce: extra.nonce })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.jwk })
    .sign(key.privateKey);
}
