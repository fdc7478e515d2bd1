/**
 * The base reader, FastAPI's `OAuth2`. See docs/contract.md#reading-the-authorization-header.
 * @module
 */
import { forbiddenNotAuthenticatedError } from './errors.js';
import type { FlowScopes, OAuthFlows } from './openapi.js';
import { createSecurityReader, type SecurityReader, type SecurityReaderOptions } from './security-reader.js';

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
export interface OAuth2Options<TFlows extends OAuthFlows, TAutoError extends boolean> extends SecurityReaderOptions<TAutoError> {
  /** The OAuth flows this scheme declares in the OpenAPI document (default: none). */
  flows?: TFlows;
}

/** The base reader's `ctx.authorization` value. */
const presentValue = (authorization: string | undefined): string | null =>
  authorization === undefined || !/\S/.test(authorization) ? null : authorization;

/**
 * The base reader (FastAPI's `OAuth2`): puts the whole `Authorization` value on
 * `ctx.authorization`. Missing or blank → 403 "Not authenticated" with no challenge header
 * (or `null` with `autoError: false`). Any flows can be declared for the OpenAPI document.
 *
 * @example
 * ```ts
 * const auth = oauth2({
 *   flows: { clientCredentials: { tokenUrl: 'cc-token', scopes: { svc: 'Service' } } },
 *   schemeName: 'ClientCreds',
 * });
 * const svc = t.procedure.use(auth).use(auth.requireScopes('svc')).query(({ ctx }) => ctx.authorization);
 * ```
 */
export function oauth2<const $Flows extends OAuthFlows = {}, $AutoError extends boolean = true>(
  options: OAuth2Options<$Flows, $AutoError> = {},
): SecurityReader<'authorization', FlowScopes<$Flows>, $AutoError> {
  const flows: OAuthFlows = options.flows ?? {};
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
