import { randomUUID } from 'node:crypto';
import { invalidTokenError } from '@trpc-oauth2/core';
import { SignJWT, errors, jwtVerify } from 'jose';
import { SIGNING_ALG, type SigningKey } from './signing-key.js';

/**
 * What a verified access token says.
 *
 * @example
 * ```ts
 * const claims: AccessTokenClaims = { sub: 'alice', scopes: ['me'], clientId: null };
 * ```
 */
export interface AccessTokenClaims {
  sub: string;
  scopes: string[];
  clientId: string | null;
}

/**
 * What issuing and verifying access tokens needs.
 *
 * @example
 * ```ts
 * const options: AccessTokenOptions = { key, issuer: 'urn:demo', audience: 'urn:demo:api', ttlSeconds: 900 };
 * ```
 */
export interface AccessTokenOptions {
  key: SigningKey;
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/**
 * RFC 9068's media type for JWT access tokens; checking it keeps other JWTs signed with the same
 * key (none today) from passing as access tokens.
 */
const ACCESS_TOKEN_TYP = 'at+jwt';

/**
 * Issues and verifies the access tokens: JWTs signed with {@link SIGNING_ALG}, carrying `iss`,
 * `aud`, `sub`, `scope` (space-separated), `client_id`, `iat`, `nbf`, `exp` and `jti`.
 *
 * @example
 * ```ts
 * const tokens = new AccessTokens({ key, issuer, audience, ttlSeconds: 900 });
 * const jwt = await tokens.issue({ sub: 'alice', scopes: ['me'], clientId: null });
 * await tokens.verify(jwt); // { sub: 'alice', scopes: ['me'], clientId: null }
 * ```
 */
export class AccessTokens {
  constructor(private readonly options: AccessTokenOptions) {}

  /** Lifetime of the tokens issued, for the token response's `expires_in`. */
  get ttlSeconds(): number {
    return this.options.ttlSeconds;
  }

  /**
   * A signed access token for `claims`.
   *
   * @example
   * ```ts
   * const jwt = await tokens.issue({ sub: 'alice', scopes: ['me', 'items'], clientId: 'demo-cli' });
   * ```
   */
  issue(claims: AccessTokenClaims): Promise<string> {
    const { key, issuer, audience, ttlSeconds } = this.options;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ scope: claims.scopes.join(' '), client_id: claims.clientId ?? undefined })
      .setProtectedHeader({ alg: SIGNING_ALG, kid: key.kid, typ: ACCESS_TOKEN_TYP })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(claims.sub)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + ttlSeconds)
      .setJti(randomUUID())
      .sign(key.privateKey);
  }

  /**
   * The claims of a valid token; otherwise throws RFC 6750 `invalid_token` (401), telling an
   * expired token apart from one refused for any other reason. A token is valid from its `nbf`
   * and `iat` (neither may lie in the future) until its `exp`, and for at most the TTL.
   *
   * @example
   * ```ts
   * const claims = await tokens.verify(ctx.token);
   * ```
   */
  async verify(token: string): Promise<AccessTokenClaims> {
    const { key, issuer, audience, ttlSeconds } = this.options;
    try {
      const { payload } = await jwtVerify(token, key.publicKey, {
        algorithms: [SIGNING_ALG],
        issuer,
        audience,
        typ: ACCESS_TOKEN_TYP,
        requiredClaims: ['sub', 'iat', 'exp', 'scope'],
        // jose checks `iat` only against a maximum age: this refuses a token issued in the
        // future, and one older than any this server issues, whatever its `exp` says.
        maxTokenAge: ttlSeconds,
      });
      if (typeof payload.scope !== 'string' || typeof payload.sub !== 'string') {
        throw new errors.JWTClaimValidationFailed('malformed scope or sub claim', payload);
      }
      const clientId = typeof payload.client_id === 'string' ? payload.client_id : null;
      return { sub: payload.sub, scopes: payload.scope.split(' ').filter(Boolean), clientId };
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw invalidTokenError('The access token expired');
      if (error instanceof errors.JOSEError || error instanceof TypeError) {
        throw invalidTokenError('The access token is invalid');
      }
      throw error;
    }
  }
}
