import type { AccessTokens } from './access-tokens.js';
import type { TokenService } from './token-service.js';
import type { UserStore } from './users.js';

/**
 * What procedures reach through `ctx.services`.
 *
 * @example
 * ```ts
 * const me = authed.query(({ ctx }) => ctx.services.users.find(ctx.user.username));
 * ```
 */
export interface Services {
  users: UserStore;
  accessTokens: AccessTokens;
  tokens: TokenService;
}
