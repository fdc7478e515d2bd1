/**
 * The base reader, FastAPI's `OAuth2`. See docs/contract.md#reading-the-authorization-header.
 * @module
 */
import { forbiddenNotAuthenticatedError } from '../errors.js';
import type { FlowScopes, OAuthFlows } from '../security-declaration.js';
import type { Principal } from './principal.js';
import type { ScopeImplications } from '../scope-hierarchy.js';
import { createSecurityReader, type NeededContext, type SecurityReader, type SecurityReaderOptions } from './security-reader.js';

/**
 * Options of the base reader.
 *
 * @example
 * ```ts
 * const options: OAuth2Options<{ clientCredentials: { tokenUrl: 'token'; scopes: { svc: 'Service' } } }, true> = {
 *   flows: { clientCredentials: { tokenUrl: 'token', scopes: { svc: 'Service' } } },
 * };
 * ```
 */
export interface OAuth2Options<
  TFlows extends OAuthFlows,
  TAutoError extends boolean,
  TPrincipal extends Principal = never,
  TManual extends boolean = false,
  TCtx = any,
  TOriginCtx = any,
  THeadersCtx = any,
> extends SecurityReaderOptions<TAutoError, TPrincipal, TManual, TCtx, TOriginCtx, THeadersCtx> {
  /** The OAuth flows this scheme declares in the OpenAPI document (default: none). */
  flows?: TFlows;
  /** What each declared scope implies (docs/contract.md#scope-hierarchy). */
  implies?: ScopeImplications<FlowScopes<TFlows>>;
}

/** The base reader's `ctx.authorization` value. */
const presentValue = (authorization: string | undefined): string | null =>
  authorization === undefined || !/\S/.test(authorization) ? null : authorization;

/**
 * The base reader (FastAPI's `OAuth2`): puts the whole `Authorization` value on
 * `ctx.authorization`. Missing or blank → 403 "Not authenticated" with no challenge header
 * (or `null` with `autoError: false`). Any flows can be declared for the OpenAPI document. With
 * `verify`, the value is verified and its principal put on `ctx.principal`.
 *
 * @example
 * ```ts
 * const auth = oauth2({
 *   flows: { clientCredentials: { tokenUrl: 'cc-token', scopes: { svc: 'Service' } } },
 *   schemeName: 'ClientCreds',
 *   verify: async (authorization) => lookUpClient(authorization), // { subject, scopes }, or invalidTokenError(…)
 * });
 * const svc = t.procedure.use(auth.withScopes('svc')).query(({ ctx }) => ctx.principal.subject);
 * ```
 */
export function oauth2<
  const $Flows extends OAuthFlows = {},
  $AutoError extends boolean = true,
  $Principal extends Principal = never,
  $Manual extends boolean = false,
  $Ctx = any,
  $OriginCtx = any,
  $HeadersCtx = any,
>(
  options: OAuth2Options<$Flows, $AutoError, $Principal, $Manual, $Ctx, $OriginCtx, $HeadersCtx> = {},
): SecurityReader<'authorization', FlowScopes<$Flows>, $AutoError, $Principal, $Manual, NeededContext<$Ctx, $OriginCtx, $HeadersCtx>> {
  const flows: OAuthFlows = options.flows ?? {};
  // The whole Authorization value goes on ctx: there is no bearer token to bind to a proof.
  if ((options as { dpop?: unknown }).dpop !== undefined) {
    throw new TypeError('oauth2 reads the whole Authorization value and takes no dpop: use oauth2Bearer (any flow), oauth2PasswordBearer or oauth2AuthorizationCodeBearer');
  }
  return createSecurityReader(
    {
      key: 'authorization',
      scheme: { type: 'oauth2', flows },
      defaultSchemeName: 'OAuth2',
      declaredScopes: Object.values(flows).flatMap((flow) => Object.keys(flow?.scopes ?? {})),
      extract: presentValue,
      defaultNotAuthenticatedError: forbiddenNotAuthenticatedError,
    },
    options,
  );
}
