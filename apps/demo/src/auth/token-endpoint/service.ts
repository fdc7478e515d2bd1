import { getOAuth2Error, type ClientCredentials, type PasswordRequestForm } from '@trpc-oauth2/core';
import { type DPoPProof } from '@trpc-oauth2/core/dpop';
import { tokenError, type RefreshTokenRequestForm } from '@trpc-oauth2/core/token-endpoint';
import type { RefreshGrant, RefreshTokenStore } from '../../store/refresh-tokens.js';
import type { UserStore } from '../../store/users.js';
import type { AccessTokens } from '../access-tokens.js';
import { authenticateClient, type DemoClient } from '../clients.js';
import type { LoginOutcome, LoginThrottle } from '../login-throttle/login-throttle.js';
import { tooManyAttemptsError } from '../login-throttle/too-many-attempts-error.js';
import { DEMO_SCOPES, isDemoScope } from '../scopes.js';

/**
 * RFC 6749 §5.1 successful token response.
 *
 * @example
 * ```ts
 * const body: TokenResponse = { access_token: 'eyJ…', token_type: 'Bearer', expires_in: 900, refresh_token: 'r…', scope: 'me items' };
 * ```
 */
export interface TokenResponse {
  access_token: string;
  /** `DPoP` when the tokens are bound to the key of the request's DPoP proof (RFC 9449 §5). */
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * What the token service works with.
 *
 * @example
 * ```ts
 * const service = new TokenService({ users, accessTokens, refreshTokens, throttle: new LoginThrottle(db, DEFAULTS.loginThrottle) });
 * ```
 */
export interface TokenServiceDeps {
  users: UserStore;
  accessTokens: AccessTokens;
  refreshTokens: RefreshTokenStore;
  /** Limits failed password grants; refresh tokens are 256 random bits, not worth guessing. */
  throttle: LoginThrottle;
}

const KNOWN_SCOPES = Object.keys(DEMO_SCOPES).join(', ');

/** What a refused password grant counts as: a guess at the user's password, at the client's secret, or neither. */
function outcomeOf(error: unknown): LoginOutcome {
  const refusal = getOAuth2Error(error)?.error;
  return refusal === 'invalid_grant' ? 'wrong-credentials' : refusal === 'invalid_client' ? 'wrong-client' : 'refused-otherwise';
}

function assertKnownScopes(scopes: readonly string[]): void {
  // The requested names are not quoted back: error_description allows only a narrow charset.
  if (!scopes.every(isDemoScope)) throw tokenError('invalid_scope', `Unknown scope requested; known scopes: ${KNOWN_SCOPES}`);
}

/**
 * The token endpoint's grants, behind core's `tokenEndpoint` (which parses the forms and
 * authenticates the client): the password grant (RFC 6749 §4.3) with the login throttle, the
 * refresh grant (§6) with rotation, and revocation (RFC 7009) of a refresh token's family.
 *
 * @example
 * ```ts
 * tokenEndpoint(t.procedure, {
 *   authenticateClient,
 *   around: ({ grantType, form, ctx }, next) => ctx.services.tokens.throttled(grantType, form, ctx.clientAddress, next),
 * }).grant('password', ({ ctx, form, client }) => ctx.services.tokens.passwordGrant(form, client, ctx.req));
 * ```
 */
export class TokenService {
  constructor(private readonly deps: TokenServiceDeps) {}

  /**
   * Runs a password grant's client authentication and checks (`next`) under the login throttle:
   * past its limits the request is refused with 429 `slow_down` before anything is checked;
   * failed attempts count against the username and `clientAddress`. Other grants pass through.
   *
   * @example
   * ```ts
   * around: ({ grantType, form, ctx }, next) => ctx.services.tokens.throttled(grantType, form, ctx.clientAddress, next),
   * ```
   */
  async throttled<$Result>(grantType: string, form: Record<string, unknown>, clientAddress: string, next: () => Promise<$Result>): Promise<$Result> {
    if (grantType !== 'password') return next();
    const attempt = await this.deps.throttle.begin(String(form.username), clientAddress);
    if (!attempt.allowed) throw tooManyAttemptsError(attempt.retryAfterSeconds, attempt.reason);
    try {
      const result = await next();
      await attempt.settle('granted');
      return result;
    } catch (error) {
      await attempt.settle(outcomeOf(error));
      throw error;
    }
  }

  /**
   * Authenticates the client of a request that carries no password (a refresh, a revocation)
   * under the login throttle's per-address limit: a wrong secret counts as a failure of the
   * address, and an address past its limit is refused with 429 `slow_down` before the secret is
   * compared, so client secrets cannot be guessed through these endpoints either (RFC 6749
   * §2.3.1). A request without client credentials has nothing to guess and is not counted.
   *
   * @example
   * ```ts
   * authenticateClient: (credentials, { ctx }) => ctx.services.tokens.authenticateClient(credentials, ctx.clientAddress),
   * ```
   */
  async authenticateClient(credentials: ClientCredentials, clientAddress: string): Promise<DemoClient | null> {
    if (credentials.method === 'none') return authenticateClient(credentials);
    const attempt = await this.deps.throttle.begin(null, clientAddress);
    if (!attempt.allowed) throw tooManyAttemptsError(attempt.retryAfterSeconds, attempt.reason);
    const client = authenticateClient(credentials);
    await attempt.settle(client === null ? 'wrong-client' : 'granted');
    return client;
  }

  /**
   * Logs a user in. An empty `scope` asks for every scope the user may have; a scope the user
   * may not have is `invalid_scope`; a wrong password and an unknown user are the same
   * `invalid_grant`. `requester` is what the password queue takes turns by (the request: the
   * logins of one tRPC batch share it, so a batch waits its turns like the same logins sent one
   * by one).
   *
   * @example
   * ```ts
   * await service.passwordGrant(passwordRequestForm.parse({ username: 'alice', password: 'wonderland' }), { clientId: null });
   * ```
   */
  async passwordGrant(form: PasswordRequestForm, client: DemoClient, requester: object = {}, dpop?: DPoPProof): Promise<TokenResponse> {
    const grant = await this.checkPasswordGrant(form, client, requester);
    // Every demo client is public: its refresh token is bound to the proof key too (RFC 9449 §5).
    const bound = { ...grant, dpopJkt: dpop?.jkt ?? null };
    return this.respond(bound, grant.scopes, await this.deps.refreshTokens.issue(bound));
  }

  /**
   * Revokes the family of a refresh token issued to `client` (RFC 7009); an unknown token is no error.
   *
   * @example
   * ```ts
   * await service.revoke(refreshToken, { clientId: null });
   * ```
   */
  async revoke(token: string, client: DemoClient): Promise<void> {
    await this.deps.refreshTokens.revoke(token, client.clientId);
  }

  /**
   * Exchanges a refresh token for new tokens. The old refresh token is spent; reusing it revokes
   * every token of its family. `scope` may narrow the access token, never widen the grant.
   *
   * @example
   * ```ts
   * await service.refreshGrant(refreshTokenGrantForm.schema.parse({ grant_type: 'refresh_token', refresh_token }), { clientId: null });
   * ```
   */
  async refreshGrant(form: RefreshTokenRequestForm, { clientId }: DemoClient, dpop?: DPoPProof): Promise<TokenResponse> {
    assertKnownScopes(form.scopes);
    const result = await this.deps.refreshTokens.rotate(form.refresh_token, clientId, form.scopes, dpop?.jkt ?? null);
    if (!result.ok) {
      if (result.reason === 'wrong_key') throw tokenError('invalid_grant', 'The refresh token is bound to another DPoP key');
      if (result.reason === 'scope_exceeded') {
        throw tokenError('invalid_scope', 'The requested scope exceeds the scope originally granted');
      }
      throw tokenError('invalid_grant', 'The refresh token is invalid, expired or revoked');
    }
    const user = await this.deps.users.find(result.grant.username);
    if (user === null) throw tokenError('invalid_grant', 'The refresh token is invalid, expired or revoked');
    const requested = form.scopes.length === 0 ? result.grant.scopes : [...new Set(form.scopes)];
    // A user who lost a scope since logging in does not get it back by refreshing.
    const scopes = requested.filter((scope) => user.scopes.includes(scope));
    // An unbound refresh token stays unbound; the access token is bound to a proof that came.
    return this.respond({ ...result.grant, dpopJkt: result.grant.dpopJkt ?? dpop?.jkt ?? null }, scopes, result.refreshToken);
  }

  private async checkPasswordGrant(form: PasswordRequestForm, { clientId }: DemoClient, requester: object): Promise<RefreshGrant> {
    assertKnownScopes(form.scopes);
    const user = await this.deps.users.authenticate(form.username, form.password, requester);
    if (user === null) throw tokenError('invalid_grant', 'Incorrect username or password');
    const scopes = form.scopes.length === 0 ? user.scopes : [...new Set(form.scopes)];
    if (!scopes.every((scope) => user.scopes.includes(scope))) {
      throw tokenError('invalid_scope', 'The requested scope exceeds what this user may be granted');
    }
    return { username: user.username, clientId, scopes };
  }

  private async respond(grant: RefreshGrant, scopes: string[], refreshToken: string): Promise<TokenResponse> {
    const { accessTokens } = this.deps;
    const jkt = grant.dpopJkt ?? undefined;
    return {
      access_token: await accessTokens.issue({ sub: grant.username, scopes, clientId: grant.clientId, jkt }),
      token_type: jkt === undefined ? 'Bearer' : 'DPoP',
      expires_in: accessTokens.ttlSeconds,
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    };
  }
}
