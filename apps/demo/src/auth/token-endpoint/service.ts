import { getOAuth2Error, readClientCredentials, type PasswordRequestForm } from '@trpc-oauth2/core';
import type { HeadersLike } from '@trpc-oauth2/core/protocol';
import type { RefreshGrant, RefreshTokenStore } from '../../store/refresh-tokens.js';
import type { UserStore } from '../../store/users.js';
import type { AccessTokens } from '../access-tokens.js';
import { authenticateClient } from '../clients.js';
import type { LoginOutcome, LoginThrottle } from '../login-throttle/login-throttle.js';
import { tooManyAttemptsError } from '../login-throttle/too-many-attempts-error.js';
import { DEMO_SCOPES, isDemoScope } from '../scopes.js';
import { tokenError } from './errors.js';
import type { RefreshRequestForm } from './refresh-request-form.js';

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
  token_type: 'Bearer';
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
  /** Client id → secret; defaults to `DEMO_CLIENTS`. */
  clients?: Readonly<Record<string, string>>;
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
 * The token endpoint's logic, shared by the tRPC mutations and the REST route: the password
 * grant (RFC 6749 §4.3) and the refresh grant (§6) with rotation.
 *
 * @example
 * ```ts
 * const token = t.procedure.input(passwordRequestForm).mutation(({ ctx, input }) =>
 *   ctx.services.tokens.passwordGrant(input, headersFromContext(ctx), ctx.clientAddress),
 * );
 * ```
 */
export class TokenService {
  constructor(private readonly deps: TokenServiceDeps) {}

  /**
   * Logs a user in. An empty `scope` asks for every scope the user may have; a scope the user
   * may not have is `invalid_scope`; a wrong password and an unknown user are the same
   * `invalid_grant`. Failed attempts count against the username and `clientAddress`; past the
   * throttle's limits the request is refused with 429 `slow_down` before anything is checked.
   * `requester` is what the password queue takes turns by (the request: the logins of one tRPC
   * batch share it, so a batch waits its turns like the same logins sent one by one).
   *
   * @example
   * ```ts
   * await service.passwordGrant(passwordRequestForm.parse({ username: 'alice', password: 'wonderland' }), {}, '127.0.0.1');
   * ```
   */
  async passwordGrant(
    form: PasswordRequestForm,
    headers: HeadersLike | undefined,
    clientAddress: string,
    requester: object = {},
  ): Promise<TokenResponse> {
    const attempt = await this.deps.throttle.begin(form.username, clientAddress);
    if (!attempt.allowed) throw tooManyAttemptsError(attempt.retryAfterSeconds);
    let grant: RefreshGrant;
    try {
      grant = await this.checkPasswordGrant(form, headers, requester);
    } catch (error) {
      await attempt.settle(outcomeOf(error));
      throw error;
    }
    await attempt.settle('granted');
    return this.respond(grant, grant.scopes, await this.deps.refreshTokens.issue(grant));
  }

  /**
   * Exchanges a refresh token for new tokens. The old refresh token is spent; reusing it revokes
   * every token of its family. `scope` may narrow the access token, never widen the grant.
   *
   * @example
   * ```ts
   * await service.refreshGrant(refreshRequestForm.parse({ grant_type: 'refresh_token', refresh_token }), {});
   * ```
   */
  async refreshGrant(form: RefreshRequestForm, headers: HeadersLike | undefined): Promise<TokenResponse> {
    const clientId = authenticateClient(readClientCredentials(headers, form), this.deps.clients);
    assertKnownScopes(form.scopes);
    const result = await this.deps.refreshTokens.rotate(form.refresh_token, clientId, form.scopes);
    if (!result.ok) {
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
    return this.respond(result.grant, scopes, result.refreshToken);
  }

  private async checkPasswordGrant(form: PasswordRequestForm, headers: HeadersLike | undefined, requester: object): Promise<RefreshGrant> {
    const clientId = authenticateClient(readClientCredentials(headers, form), this.deps.clients);
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
    return {
      access_token: await accessTokens.issue({ sub: grant.username, scopes, clientId: grant.clientId }),
      token_type: 'Bearer',
      expires_in: accessTokens.ttlSeconds,
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    };
  }
}
