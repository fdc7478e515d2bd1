import { randomUUID } from 'node:crypto';
import { jwtVerifier, type JwtPrincipal, type TokenVerifier } from '@trpc-oauth2/jwt';
import { SignJWT } from 'jose';
import { z } from 'zod';
import { SIGNING_ALG, type SigningKey } from './signing-key.js';

/**
 * What an access token is issued for.
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
  /** The thumbprint of the DPoP key the token is bound to (`cnf.jkt`, RFC 9449 §6.1), if any. */
  jkt?: string | undefined;
}

/** The claims an access token must carry beside the registered ones: `scope` is required here. */
const accessTokenClaims = z.object({ scope: z.string(), client_id: z.string().optional() });

/**
 * What the access-token verifier returns: `@trpc-oauth2/jwt`'s principal with the demo's claims.
 *
 * @example
 * ```ts
 * const principal: AccessTokenPrincipal = await tokens.verify(jwt); // { subject: 'alice', scopes: ['me'], expiresAt, claims }
 * ```
 */
export type AccessTokenPrincipal = JwtPrincipal<z.output<typeof accessTokenClaims>>;

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
 * Issues the access tokens — JWTs signed with {@link SIGNING_ALG}, carrying `iss`, `aud`, `sub`,
 * `scope` (space-separated), `client_id`, `iat`, `nbf`, `exp` and `jti` — and verifies them with
 * `@trpc-oauth2/jwt`'s `jwtVerifier`, pinned to the signing key, its algorithm, the issuer, the
 * audience, RFC 9068's `typ: at+jwt`, and a maximum age of the TTL (an `iat` in the future, or older
 * than any token this server issues, is refused whatever `exp` says).
 *
 * @example
 * ```ts
 * const tokens = new AccessTokens({ key, issuer, audience, ttlSeconds: 900 });
 * const jwt = await tokens.issue({ sub: 'alice', scopes: ['me'], clientId: null });
 * (await tokens.verify(jwt)).subject; // 'alice'
 * ```
 */
export class AccessTokens {
  /** The verifier of the tokens this key signs; refusals are `invalid_token` with a fixed description. */
  readonly verify: TokenVerifier<AccessTokenPrincipal>;

  constructor(private readonly options: AccessTokenOptions) {
    const { key, issuer, audience, ttlSeconds } = options;
    this.verify = jwtVerifier({
      key: key.publicKey,
      algorithms: [SIGNING_ALG],
      issuer,
      audience,
      requireAccessTokenType: true,
      maxTokenAge: ttlSeconds,
      claims: accessTokenClaims,
    });
  }

  /** The key id (`kid`) of the tokens this issues. */
  get kid(): string {
    return this.options.key.kid;
  }

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
    return new SignJWT({
      scope: claims.scopes.join(' '),
      client_id: claims.clientId ?? undefined,
      ...(claims.jkt === undefined ? {} : { cnf: { jkt: claims.jkt } }),
    })
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
}
