import type { IncomingMessage } from 'node:http';
import { oauth2ErrorData } from '@trpc-oauth2/core/token-endpoint';
import type { JwtPrincipal, TokenVerifier } from '@trpc-oauth2/jwt';
import { initTRPC, TRPCError } from '@trpc/server';
import type { TRPCRequestInfo } from '@trpc/server/http';
import superjson from 'superjson';
import type { OpenApiMeta } from 'trpc-to-openapi';
import type { AccessTokens } from '../auth/access-tokens.js';
import type { TokenService } from '../auth/token-endpoint/service.js';
import type { DemoDPoP } from '../auth/dpop.js';
import { databaseFaultOf } from '../store/database.js';
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

/** What a client is told when the database cannot be reached (no more: the fault itself is logged). */
const SERVICE_UNAVAILABLE_MESSAGE = 'The service is unavailable for a moment: try again shortly';

const root = initTRPC
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

/**
 * A call that failed because the database cannot be reached (PostgreSQL stopped, restarting, a
 * connection lost under the call: `isDatabaseUnavailable`) is `SERVICE_UNAVAILABLE`, 503 on every
 * face, the token endpoint's included (its RFC 6749 answer is then `server_error` with 503), and
 * not the 500 of a bug: nothing is wrong with the request, and it may be sent again once the
 * database is back (`Retry-After`, which the HTTP faces add). The driver's error stays the
 * cause, for the logs; the client is told nothing of it.
 */
const databaseFaults = root.middleware(async ({ next }) => {
  const result = await next();
  if (result.ok) return result;
  const fault = databaseFaultOf(result.error);
  if (fault === undefined) return result;
  throw new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: SERVICE_UNAVAILABLE_MESSAGE, cause: fault });
});

/**
 * The tRPC instance: superjson on the wire, OpenAPI metadata for trpc-to-openapi, and no stack
 * traces in responses (a stack could carry request data). Every procedure starts from
 * `t.procedure`, which answers a database that cannot be reached with 503 `SERVICE_UNAVAILABLE`.
 *
 * @example
 * ```ts
 * const ping = t.procedure.query(() => 'pong');
 * ```
 */
export const t = { ...root, procedure: root.procedure.use(databaseFaults) };
