import type { IncomingMessage } from 'node:http';
import { oauth2ErrorData } from '@trpc-oauth2/core/token-endpoint';
import type { JwtPrincipal, TokenVerifier } from '@trpc-oauth2/jwt';
import { initTRPC } from '@trpc/server';
import type { TRPCRequestInfo } from '@trpc/server/http';
import superjson from 'superjson';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { TokenService } from '../auth/token-endpoint/service.js';
import type { DemoDPoP } from '../auth/dpop.js';
import type { UserStore } from '../store/users.js';
import type { ItemFeed } from './item-feed.js';

/**
 * What procedures reach through `ctx.services`.
 *
 * @example
 * ```ts
 * const me = authed.query(({ ctx }) => ctx.services.users.find(ctx.principal.user.username));
 * ```
 */
export interface Services {
  users: UserStore;
  accessTokens: AccessTokens;
  /** Verifies the JWT access tokens of the authorization server at `/oidc` (its key set). */
  authorizationServerTokens: TokenVerifier<JwtPrincipal>;
  tokens: TokenService;
  /** How DPoP proofs are checked, at the token endpoint and on the API (RFC 9449). */
  dpop: DemoDPoP;
  /** Wakes the item streams of a user whose list changed. */
  itemFeed: ItemFeed;
}

/**
 * The context of every procedure: the request (a Node `IncomingMessage` from tRPC's adapter, a
 * Fetch `Request` from the REST handler; the readers accept both), the address of the client
 * (a Fetch `Request` does not carry it) and the services.
 *
 * @example
 * ```ts
 * const createContext = ({ req }: { req: IncomingMessage }): DemoContext => ({ req, clientAddress: clientAddress(req.socket), services });
 * ```
 */
export interface DemoContext {
  req: IncomingMessage | Request;
  /**
   * tRPC's request info: over WebSockets, the readers find the credential in its connection
   * params (docs/contract.md#subscriptions). The REST face has none.
   */
  info?: TRPCRequestInfo;
  /** What the login throttle counts failures of, besides the username (see `clientAddress`). */
  clientAddress: string;
  services: Services;
}

/**
 * The tRPC instance: superjson on the wire, OpenAPI metadata for trpc-to-openapi, and no stack
 * traces in responses (a stack could carry request data).
 *
 * @example
 * ```ts
 * const ping = t.procedure.query(() => 'pong');
 * ```
 */
export const t = initTRPC
  .context<DemoContext>()
  .meta<OpenApiMeta>()
  .create({
    transformer: superjson,
    isDev: false,
    // What an error tells a tRPC client about its OAuth 2.0 cause (`null` for other errors): the
    // stable code, RFC 6749's `error` and `error_description`. A server fault is logged, never
    // described: its message may be a database's.
    errorFormatter: ({ shape, error }) => ({
      ...shape,
      message: error.code === 'INTERNAL_SERVER_ERROR' ? 'Internal server error' : shape.message,
      data: { ...shape.data, oauth2: oauth2ErrorData(error) },
    }),
  });
