import * as crypto from 'node:crypto';
import { BENCH_JWT } from '../bench-jwt.js';

/**
 * The digest `cacheVerifier` keys a token by (its SHA-256, by Node's one-shot `crypto.hash`), of
 * the bench's JWT: what a cache hit pays before its lookup, since the cache holds no raw token.
 *
 * @example
 * ```ts
 * digestToken().length; // 44
 * ```
 */
export function digestToken(): string {
  return crypto.hash('sha256', BENCH_JWT.token, 'base64');
}
