import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import { httpOnLoopback } from './server-url.js';
import { printable } from './terminal-text.js';

/**
 * The command-line client's id at the authorization server: a public native client (RFC 8252).
 *
 * @example
 * ```ts
 * const client: oauth.Client = { client_id: CLI_CLIENT_ID };
 * ```
 */
export const CLI_CLIENT_ID = 'demo-cli';

const client: oauth.Client = { client_id: CLI_CLIENT_ID };
const clientAuth = oauth.None();
// A person has this long to log in in the browser.
const LOGIN_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * The tokens the authorization server answered with.
 *
 * @example
 * ```ts
 * const tokens: AuthorizationServerTokens = { accessToken: 'eyJ…', refreshToken: 'r…', scope: 'me', expiresIn: 900 };
 * ```
 */
export interface AuthorizationServerTokens {
  accessToken: string;
  refreshToken: string | null;
  scope: string;
  /** The access token's lifetime in seconds, `undefined` when the response gave none (RFC 6749 §5.1: unknown). */
  expiresIn: number | undefined;
}

/**
 * The authorization server's metadata, read from its discovery document
 * (`<base>/oidc/.well-known/openid-configuration`).
 *
 * @example
 * ```ts
 * const as = await discover('http://127.0.0.1:3000');
 * as.token_endpoint; // 'http://127.0.0.1:3000/oidc/token'
 * ```
 */
export async function discover(baseUrl: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(`${baseUrl}/oidc`);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...httpOnLoopback(issuer) }));
  // The document is the server's word: every endpoint the client uses must be the issuer's own.
  for (const name of ['authorization_endpoint', 'token_endpoint', 'revocation_endpoint'] as const) {
    const endpoint = as[name];
    if (endpoint !== undefined) checkEndpoint(issuer, name, endpoint);
  }
  return as;
}

/**
 * Refuses an endpoint of the discovery document that is not on the issuer's origin (same scheme,
 * host and port, so `https:`, or `http:` on a loopback host, as the `--url` it came from), or that
 * carries credentials: the authorization endpoint is handed to the system's URL opener, which
 * would open a `file:`, `smb:`, `javascript:` or custom-protocol URL as readily as a web page.
 */
function checkEndpoint(issuer: URL, name: string, endpoint: unknown): void {
  const url = typeof endpoint === 'string' && URL.canParse(endpoint) ? new URL(endpoint) : undefined;
  if (url !== undefined && url.origin === issuer.origin && url.username === '' && url.password === '') return;
  throw new Error(
    `The authorization server at ${issuer.href} names ${name} ${printable(JSON.stringify(endpoint))}, not a URL of its own origin ${issuer.origin}: refused (nothing was opened or sent).`,
  );
}

/** The options of a request to the authorization server (plain http on loopback only) and, with a DPoP handle, of a token request bound to its key (RFC 9449). */
const requestOptions = (as: oauth.AuthorizationServer, dpop?: oauth.DPoPHandle) => ({ ...httpOnLoopback(as.issuer), ...(dpop === undefined ? {} : { DPoP: dpop }) });

const toTokens = (response: oauth.TokenEndpointResponse): AuthorizationServerTokens => ({
  accessToken: response.access_token,
  refreshToken: response.refresh_token ?? null,
  scope: response.scope ?? '',
  expiresIn: response.expires_in,
});

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

const PAGE = (text: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>trpc-oauth2 demo client</title></head><body><p>${text}</p></body></html>`;

/**
 * Logs in through the browser: the authorization-code flow with PKCE (S256) and a loopback
 * redirect (RFC 8252 §7.3). It listens on `127.0.0.1` on a port the OS picks, hands `open` the
 * authorization URL (a person opens it in a browser, logs in and consents), takes the code from
 * the redirect that carries its `state` (any other request there is answered 400 and ignored),
 * checks `iss`, and redeems the code with its code verifier (and, given a DPoP
 * handle, a proof of its key: the tokens are bound to it, RFC 9449).
 *
 * @example
 * ```ts
 * const tokens = await browserLogin('http://127.0.0.1:3000', 'me items', (url) => console.log(`Open ${url}`));
 * ```
 */
export async function browserLogin(
  baseUrl: string,
  scope: string,
  open: (url: string) => void | Promise<void>,
  dpop?: oauth.DPoPHandle,
): Promise<AuthorizationServerTokens> {
  const as = await discover(baseUrl);
  if (as.authorization_endpoint === undefined) throw new Error(`The authorization server at ${as.issuer} names no authorization_endpoint: it cannot log in through a browser.`);
  const authorizationEndpoint = as.authorization_endpoint;
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  let settle!: { resolve: (url: URL) => void; reject: (error: Error) => void };
  const callback = new Promise<URL>((resolve, reject) => (settle = { resolve, reject }));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback' || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    // Any page or process on this machine can reach the loopback port: a redirect without this
    // login's `state` is answered and ignored, and the login keeps waiting for its own.
    if (url.searchParams.get('state') !== state) {
      res
        .writeHead(400, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'" })
        .end(PAGE('This is not the login the terminal is waiting for: it goes on waiting for its own.'));
      return;
    }
    const failed = url.searchParams.has('error');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'" })
      .end(PAGE(failed ? 'The login did not complete: go back to the terminal.' : 'Logged in: you can close this tab and go back to the terminal.'));
    settle.resolve(url);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const timer = setTimeout(() => settle.reject(new Error('No login came back within 5 minutes')), LOGIN_TIMEOUT_MS);
  try {
    const authorize = new URL(authorizationEndpoint);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: CLI_CLIENT_ID,
      redirect_uri: redirectUri,
      scope,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    }).toString();
    await open(authorize.href);
    const back = await callback;
    const params = oauth.validateAuthResponse(as, client, back, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, codeVerifier, requestOptions(as, dpop));
    return toTokens(await oauth.processAuthorizationCodeResponse(as, client, response));
  } finally {
    clearTimeout(timer);
    await closeServer(server);
  }
}

/**
 * Exchanges a refresh token of the authorization server for new tokens (it rotates).
 *
 * @example
 * ```ts
 * const next = await refreshAtAuthorizationServer('http://127.0.0.1:3000', tokens.refreshToken!);
 * ```
 */
export async function refreshAtAuthorizationServer(baseUrl: string, refreshToken: string, dpop?: oauth.DPoPHandle): Promise<AuthorizationServerTokens> {
  const as = await discover(baseUrl);
  const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, requestOptions(as, dpop));
  return toTokens(await oauth.processRefreshTokenResponse(as, client, response));
}

/**
 * Revokes a token at the authorization server (RFC 7009).
 *
 * @example
 * ```ts
 * await revokeAtAuthorizationServer('http://127.0.0.1:3000', tokens.refreshToken!);
 * ```
 */
export async function revokeAtAuthorizationServer(baseUrl: string, token: string): Promise<void> {
  const as = await discover(baseUrl);
  await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, token, requestOptions(as)));
}
