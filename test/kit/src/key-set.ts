import { createServer } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { closing, listening } from './serve.js';

/** How {@link LoopbackKeySet.token} signs: defaults `https://api.example`, `5m`, the set's own key. */
export interface TokenOptions {
  readonly audience?: string;
  readonly expiresIn?: string;
  readonly key?: CryptoKey;
}

/** An authorization server's key set on loopback, and tokens signed by its key. */
export interface LoopbackKeySet {
  /** `http://127.0.0.1:<port>`: the issuer of its tokens, and where its JWKS is served. */
  readonly issuer: string;
  /** An ES256 JWT for `alice` with `claims`, signed with the key the set serves (`kid` k1) unless `key` says otherwise. */
  token(claims: JWTPayload, options?: TokenOptions): Promise<string>;
  close(): Promise<void>;
}

/**
 * Serves a fresh ES256 key's JWKS on 127.0.0.1 (any path), for the examples that find their
 * issuer in `process.env.ISSUER`: it is set to this one.
 */
export async function serveKeySet(): Promise<LoopbackKeySet> {
  const pair = await generateKeyPair('ES256');
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] });
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(jwks)).listen(0, '127.0.0.1');
  const issuer = `http://127.0.0.1:${await listening(server)}`;
  process.env.ISSUER = issuer;
  return {
    issuer,
    token: (claims, { audience = 'https://api.example', expiresIn = '5m', key = pair.privateKey } = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject('alice')
        .setIssuedAt()
        .setExpirationTime(expiresIn)
        .sign(key),
    close: () => closing(server),
  };
}
