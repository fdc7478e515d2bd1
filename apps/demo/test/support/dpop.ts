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

/**
 * Logs in with the password flow over REST with DPoP (RFC 9449 §5): the token endpoint asks for a
 * nonce first, and the second proof carries it. Fails the test on anything but a DPoP-bound token.
 */
export async function dpopLogin(baseUrl: string, key: DPoPKey, username: string, password: string, htuOrigin = baseUrl) {
  const htu = `${htuOrigin}/api/token`;
  const post = async (proof: string) => {
    const response = await fetch(`${baseUrl}/api/token`, { method: 'POST', body: new URLSearchParams({ username, password }), headers: { dpop: proof } });
    return { status: response.status, nonce: response.headers.get('dpop-nonce'), body: (await response.json()) as any };
  };
  const asked = await post(await dpopProof(key, 'POST', htu));
  if (asked.body.error !== 'use_dpop_nonce' || asked.nonce === null) throw new Error(`DPoP login: expected use_dpop_nonce, got ${asked.status} ${JSON.stringify(asked.body)}`);
  const answer = await post(await dpopProof(key, 'POST', htu, { nonce: asked.nonce }));
  if (answer.status !== 200 || answer.body.token_type !== 'DPoP') throw new Error(`DPoP login: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body as { access_token: string; refresh_token: string; token_type: 'DPoP'; scope: string };
}
