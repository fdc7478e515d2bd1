import * as oauth from 'oauth4webapi';
import { CLI_CLIENT_ID } from './authorization-code-login.js';
import { withDPoPNonce } from './dpop.js';
import { httpOnLoopback } from './server-url.js';

const client: oauth.Client = { client_id: CLI_CLIENT_ID };
/** The client's secret at the demo's token endpoint, where it is a confidential client. */
const clientAuth = oauth.ClientSecretBasic('demo-cli-secret');

/**
 * The demo's token endpoint as oauth4webapi sees an authorization server: only its token
 * endpoint, `POST /api/token`.
 *
 * @example
 * ```ts
 * tokenEndpointServer('http://127.0.0.1:3000').token_endpoint; // 'http://127.0.0.1:3000/api/token'
 * ```
 */
export function tokenEndpointServer(baseUrl: string): oauth.AuthorizationServer {
  return { issuer: baseUrl, token_endpoint: `${baseUrl}/api/token` };
}

/**
 * Logs in with the password flow at the demo's token endpoint through oauth4webapi; with a DPoP
 * handle the tokens are bound to its key (after the nonce the endpoint asks for, RFC 9449 §8).
 *
 * @example
 * ```ts
 * const tokens = await passwordLogin('http://127.0.0.1:3000', { username: 'alice', password: 'wonderland', scope: 'me items' }, handle);
 * ```
 */
export async function passwordLogin(
  baseUrl: string,
  credentials: { username: string; password: string; scope: string },
  dpop?: oauth.DPoPHandle,
): Promise<oauth.TokenEndpointResponse> {
  const as = tokenEndpointServer(baseUrl);
  const options = { ...httpOnLoopback(baseUrl), ...(dpop === undefined ? {} : { DPoP: dpop }) };
  return withDPoPNonce(async () =>
    oauth.processGenericTokenEndpointResponse(as, client, await oauth.genericTokenEndpointRequest(as, client, clientAuth, 'password', credentials, options)),
  );
}

/**
 * New tokens from a refresh token of the demo's token endpoint (it rotates); a DPoP-bound refresh
 * token needs a proof by its key.
 *
 * @example
 * ```ts
 * const next = await refreshAtTokenEndpoint('http://127.0.0.1:3000', session.refreshToken, handle);
 * ```
 */
export async function refreshAtTokenEndpoint(baseUrl: string, refreshToken: string, dpop?: oauth.DPoPHandle): Promise<oauth.TokenEndpointResponse> {
  const as = tokenEndpointServer(baseUrl);
  const options = { ...httpOnLoopback(baseUrl), ...(dpop === undefined ? {} : { DPoP: dpop }) };
  return withDPoPNonce(async () =>
    oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, options)),
  );
}
