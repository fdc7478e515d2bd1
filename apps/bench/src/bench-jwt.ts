import { readFileSync } from 'node:fs';
import type { JWK } from 'jose';

/**
 * The JWT the verified routes and procedures are sent, shared with the FastAPI peer through
 * `peer/bench_jwt.json`: an ES256 access token (`scope: 'me items'`, valid until 2100) and the
 * public key that verifies it. The key pair was generated once for the bench; its private half
 * was not kept.
 *
 * @example
 * ```ts
 * jwtVerifier({ key: BENCH_JWT.publicJwk, algorithms: ['ES256'], issuer: BENCH_JWT.issuer, audience: BENCH_JWT.audience });
 * ```
 */
export const BENCH_JWT: { issuer: string; audience: string; publicJwk: JWK; token: string } = JSON.parse(
  readFileSync(new URL('../peer/bench_jwt.json', import.meta.url), 'utf8'),
);
