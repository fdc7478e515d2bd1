/**
 * The authorization server's pages as a person goes through them, over plain HTTP: what the
 * soak's races at `/oidc` and the tests use to get authorization codes.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';

/**
 * A PKCE pair (RFC 7636, S256).
 *
 * @example
 * ```ts
 * const { verifier, challenge } = pkcePair();
 * ```
 */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * A browser without a browser: follows redirects by hand and keeps cookies by name.
 *
 * @example
 * ```ts
 * const { url, response } = await new CookieSession().follow(authorizeUrl);
 * ```
 */
export class CookieSession {
  private readonly cookies = new Map<string, string>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';', 1);
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** GETs `url` and follows redirects on this origin; returns the last response and its URL. */
  async follow(url: string, init: RequestInit = {}, stopAt?: (url: string) => boolean): Promise<{ url: string; response: Response }> {
    let current = url;
    let response = await this.fetch(current, init);
    for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops++) {
      current = new URL(response.headers.get('location')!, current).href;
      if (stopAt?.(current)) return { url: current, response };
      response = await this.fetch(current);
    }
    return { url: current, response };
  }
}

/**
 * What {@link authorizeOverHttp} sends as the authorization request.
 *
 * @example
 * ```ts
 * const options: AuthorizeOptions = { clientId: 'swagger-ui', redirectUri, username: 'alice', password: 'wonderland', scope: 'me', codeChallenge };
 * ```
 */
export interface AuthorizeOptions {
  clientId: string;
  redirectUri: string;
  username: string;
  password: string;
  scope: string;
  codeChallenge: string;
  state?: string;
  /** The resource the token is for (RFC 8707); the API's audience when absent. */
  resource?: string;
}

const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/**
 * The pages of the authorization server as a person goes through them, over plain HTTP: from
 * the authorization URL, the login page (filled with `username` / `password`), the consent page
 * (Allow), until the redirect to `redirectUri` (any port, for a loopback one). Returns that URL;
 * with `visit`, also GETs it (the client's loopback server receives the code).
 *
 * @example
 * ```ts
 * const back = await completeAuthorization(authorizeUrl, { username: 'alice', password: 'wonderland' }, redirectUri);
 * ```
 */
export async function completeAuthorization(
  authorizeUrl: string,
  login: { username: string; password: string },
  redirectUri: string,
  visit = false,
): Promise<URL> {
  const session = new CookieSession();
  const origin = new URL(authorizeUrl).origin;
  const target = new URL(redirectUri);
  const done = (url: string) => {
    const next = new URL(url);
    const loopback = target.hostname === '127.0.0.1' && target.port === '';
    return next.hostname === target.hostname && next.pathname === target.pathname && (loopback || next.port === target.port);
  };
  let step = await session.follow(authorizeUrl, {}, done);
  for (let pages = 0; pages < 4 && !done(step.url); pages++) {
    const html = await step.response.text();
    if (!step.url.includes('/interaction/')) throw new Error(`unexpected page ${step.url}: ${step.response.status} ${html.slice(0, 300)}`);
    const action = /<form method="post" action="([^"]+\/(login|consent))"/.exec(html);
    if (action === null) throw new Error(`no login or consent form at ${step.url}: ${html.slice(0, 300)}`);
    const fields: Record<string, string> = action[2] === 'login' ? login : {};
    step = await session.follow(new URL(action[1]!, origin).href, form(fields), done);
  }
  if (!done(step.url)) throw new Error(`did not come back to the client: ${step.url}`);
  if (visit) await fetch(step.url);
  return new URL(step.url);
}

/**
 * The authorization URL Swagger UI opens (its client, its redirect page, PKCE with `codeChallenge`),
 * where a browser's walk through the interaction pages starts.
 *
 * @example
 * ```ts
 * const start = await session.follow(swaggerAuthorizeUrl(url, pkcePair().challenge));
 * ```
 */
export function swaggerAuthorizeUrl(baseUrl: string, codeChallenge: string, scope = 'me'): string {
  return `${baseUrl}/oidc/auth?${new URLSearchParams({
    response_type: 'code',
    client_id: 'swagger-ui',
    redirect_uri: `${baseUrl}/docs/oauth2-redirect.html`,
    scope,
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
  })}`;
}

/**
 * The authorization-code dance for `options.clientId`, as a browser does it, over plain HTTP.
 * Returns the redirect URI the authorization server sent the browser to (with `code` and
 * `state`, or `error`).
 *
 * @example
 * ```ts
 * const back = await authorizeOverHttp(url, { clientId: 'swagger-ui', redirectUri, username: 'alice', password: 'wonderland', scope: 'me', codeChallenge });
 * ```
 */
export async function authorizeOverHttp(baseUrl: string, options: AuthorizeOptions): Promise<URL> {
  const authorize = new URL(`${baseUrl}/oidc/auth`);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: options.scope,
    code_challenge: options.codeChallenge,
    code_challenge_method: 'S256',
    state: options.state ?? randomBytes(8).toString('hex'),
    ...(options.resource === undefined ? {} : { resource: options.resource }),
  }).toString();
  return completeAuthorization(authorize.href, options, options.redirectUri);
}

/**
 * Redeems a code at the authorization server's token endpoint, as the public client.
 *
 * @example
 * ```ts
 * const { status, body } = await redeemCode(url, { clientId: 'swagger-ui', code, redirectUri, codeVerifier });
 * ```
 */
export async function redeemCode(
  baseUrl: string,
  fields: { clientId: string; code: string; redirectUri: string; codeVerifier: string; resource?: string },
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}/oidc/token`, form({
    grant_type: 'authorization_code',
    client_id: fields.clientId,
    code: fields.code,
    redirect_uri: fields.redirectUri,
    code_verifier: fields.codeVerifier,
    ...(fields.resource === undefined ? {} : { resource: fields.resource }),
  }));
  return { status: response.status, body: await response.json() };
}

/**
 * What redeeming a code of {@link aliceCode} takes, and where the browser was sent back to.
 *
 * @example
 * ```ts
 * const { status } = await redeemCode(url, await aliceCode(url));
 * ```
 */
export interface AliceCode {
  clientId: 'swagger-ui';
  code: string;
  redirectUri: string;
  codeVerifier: string;
  /** The redirect the authorization server answered with (`code`, `state`). */
  back: URL;
}

/**
 * A fresh authorization code of the demo at `baseUrl` for alice (scopes `me items`), asked for
 * by Swagger UI's client with PKCE, for `resource` when given (RFC 8707).
 *
 * @example
 * ```ts
 * const fields = await aliceCode(demo.url, { resource: `${demo.url}/mcp` });
 * ```
 */
export async function aliceCode(baseUrl: string, options: { resource?: string; state?: string } = {}): Promise<AliceCode> {
  const pkce = pkcePair();
  const redirectUri = `${baseUrl}/docs/oauth2-redirect.html`;
  const back = await authorizeOverHttp(baseUrl, {
    clientId: 'swagger-ui',
    redirectUri,
    username: 'alice',
    password: 'wonderland',
    scope: 'me items',
    codeChallenge: pkce.challenge,
    ...options,
  });
  const code = back.searchParams.get('code');
  if (code === null) throw new Error(`no code came back: ${back.href}`);
  return { clientId: 'swagger-ui', code, redirectUri, codeVerifier: pkce.verifier, back };
}
