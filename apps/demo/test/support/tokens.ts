import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SignJWT, base64url, generateKeyPair, importJWK, type JWK, type JWTPayload } from 'jose';
import { SIGNING_KEY_FILE } from '../../src/auth/signing-key.js';
import { AUTHORIZATION_SERVER_ALG, loadOrCreateAuthorizationServerKeys } from '../../src/authorization-server/keys.js';
import { DEFAULTS } from '../../src/server/config.js';

/** The demo's persisted signing key, read as a test (or an attacker holding it) would. */
export async function readStoredKey(dataDir: string): Promise<{ kid: string; jwk: JWK }> {
  return JSON.parse(await readFile(join(dataDir, SIGNING_KEY_FILE), 'utf8'));
}

const now = () => Math.floor(Date.now() / 1000);

/** Claims of a valid access token for `sub`, to be altered by a test. */
export const validClaims = (sub = 'alice', scope = 'me items'): JWTPayload => ({
  iss: DEFAULTS.issuer,
  aud: DEFAULTS.audience,
  sub,
  scope,
  iat: now(),
  nbf: now(),
  exp: now() + 600,
});

/** Signs `claims` with the server's own key, so only what a test changes is wrong. */
export async function signWithServerKey(dataDir: string, claims: JWTPayload, header: Record<string, unknown> = {}): Promise<string> {
  const { kid, jwk } = await readStoredKey(dataDir);
  const key = await importJWK(jwk, 'ES256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt', ...header }).sign(key);
}

/** An unsigned token (`alg: none`), naming the key id `kid` when given (as an attacker copying it would). */
export const unsignedToken = (claims: JWTPayload, kid?: string) =>
  `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt', ...(kid === undefined ? {} : { kid }) }))}.${base64url.encode(JSON.stringify(claims))}.`;

/** HS256 signed with the server's public key as the HMAC secret: the classic confusion attack. */
export async function hmacWithPublicKey(dataDir: string, claims: JWTPayload): Promise<string> {
  const { kid, jwk } = await readStoredKey(dataDir);
  const publicJwk = JSON.stringify({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y });
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid, typ: 'at+jwt' }).sign(new TextEncoder().encode(publicJwk));
}

/** A well-formed token signed by a key the server does not hold, under a key id of its own. */
export async function signWithAnotherKey(claims: JWTPayload): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256');
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'another-key', typ: 'at+jwt' }).sign(privateKey);
}

/**
 * An access token of the demo's authorization server (signed with its key in `dataDir`) for the
 * MCP resource of the demo at `url`, for `sub`, with `claims` changed as a test says.
 */
export async function signMcpToken(demo: { url: string; dataDir: string }, sub: string, claims: JWTPayload = {}): Promise<string> {
  const [jwk] = (await loadOrCreateAuthorizationServerKeys(demo.dataDir)).signingKeys;
  const iat = now();
  const payload: JWTPayload = { iss: `${demo.url}/oidc`, aud: `${demo.url}/mcp`, sub, scope: 'me items', client_id: 'demo-mcp', jti: `${sub}-${iat}-${Math.random()}`, iat, exp: iat + 300, ...claims };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: AUTHORIZATION_SERVER_ALG, kid: jwk!.kid, typ: 'at+jwt' })
    .sign(await importJWK(jwk!, AUTHORIZATION_SERVER_ALG));
}
