import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { jwtVerifier, type AsymmetricAlgorithm } from '@trpc-oauth2/jwt';
import { joseToDer } from 'ecdsa-sig-formatter';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { BENCH_JWT } from '../bench-jwt.js';

/**
 * One algorithm's pair of verifications of the same token: `jwtVerifier` (uncached) and the floor,
 * Node's `crypto.verify` on a `KeyObject` plus the same claim checks written inline.
 *
 * @example
 * ```ts
 * const { ours, floor } = SIGNATURE_FLOORS.find((entry) => entry.alg === 'ES256')!;
 * await ours(); floor();
 * ```
 */
export interface SignatureFloor {
  alg: 'ES256' | 'RS256' | 'EdDSA';
  ours: () => Promise<unknown>;
  floor: () => unknown;
}

const { issuer, audience } = BENCH_JWT;

/**
 * How `crypto.verify` is called for each algorithm (RFC 7518 §3, RFC 8037), in the form every
 * Node version checks at its cheapest: the bare `KeyObject` (RSA's default padding is PKCS #1
 * v1.5, RS256's), and the ES256 signature (r ‖ s) as DER. On Node 24 a key given as `{ key, … }`
 * adds about 12 µs and `dsaEncoding: 'ieee-p1363'` about 27 µs; a floor must pay neither.
 */
const CALLS = {
  ES256: { hash: 'sha256', signature: (bytes: Buffer) => joseToDer(bytes, 'ES256') },
  RS256: { hash: 'sha256', signature: (bytes: Buffer) => bytes },
  EdDSA: { hash: null, signature: (bytes: Buffer) => bytes },
} as const;

/**
 * The floor: the least a correct verification does. Cut the token, check the signature, read the
 * payload, check `iss`, `aud`, `exp`, `nbf`, `sub` and the scope string; nothing else.
 */
function floorOf(alg: SignatureFloor['alg'], key: KeyObject, token: string): () => unknown {
  const { hash, signature } = CALLS[alg];
  return () => {
    const first = token.indexOf('.');
    const second = token.indexOf('.', first + 1);
    const signed = cryptoVerify(hash, Buffer.from(token.slice(0, second), 'latin1'), key, signature(Buffer.from(token.slice(second + 1), 'base64url')));
    if (!signed) throw new Error('signature');
    const claims = JSON.parse(Buffer.from(token.slice(first + 1, second), 'base64url').toString('utf8')) as Record<string, unknown>;
    const now = Math.floor(Date.now() / 1000);
    if (claims.iss !== issuer || claims.aud !== audience) throw new Error('iss or aud');
    if (typeof claims.exp !== 'number' || claims.exp <= now) throw new Error('exp');
    if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > now)) throw new Error('nbf');
    if (typeof claims.sub !== 'string' || typeof claims.scope !== 'string') throw new Error('sub or scope');
    return { subject: claims.sub, scopes: claims.scope.split(' '), expiresAt: claims.exp, claims };
  };
}

async function entry(alg: SignatureFloor['alg']): Promise<SignatureFloor> {
  let publicJwk: JWK;
  let token: string;
  if (alg === 'ES256') {
    ({ publicJwk, token } = BENCH_JWT);
  } else {
    const pair = await generateKeyPair(alg);
    publicJwk = await exportJWK(pair.publicKey);
    token = await new SignJWT({ scope: 'me items', iss: issuer, aud: audience, sub: 'alice', iat: 1767225600, exp: 4102444800 })
      .setProtectedHeader({ alg, typ: 'JWT' })
      .sign(pair.privateKey);
  }
  const verify = jwtVerifier({ key: publicJwk, algorithms: [alg as AsymmetricAlgorithm], issuer, audience });
  const floor = floorOf(alg, createPublicKey({ key: publicJwk as never, format: 'jwk' }), token);
  return { alg, ours: () => verify(token), floor };
}

/**
 * The ES256 (the bench's token), RS256 and EdDSA pairs; RS256 and EdDSA keys and tokens are made
 * when the bench starts.
 *
 * @example
 * ```ts
 * for (const { alg, ours, floor } of SIGNATURE_FLOORS) console.log(alg, await ours(), floor());
 * ```
 */
export const SIGNATURE_FLOORS: readonly SignatureFloor[] = await Promise.all((['ES256', 'RS256', 'EdDSA'] as const).map(entry));
