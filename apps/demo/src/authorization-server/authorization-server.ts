import type { IncomingMessage, ServerResponse } from 'node:http';
import Provider, { errors, type Configuration } from 'oidc-provider';
import type { LoginThrottle } from '../auth/login-throttle/login-throttle.js';
import { DEMO_SCOPES, isDemoScope } from '../auth/scopes.js';
import { DATABASE_RETRY_AFTER_SECONDS, databaseFaultOf } from '../store/database.js';
import { AlreadyRecordedError, type OidcPayloadStore } from '../store/oidc-payloads.js';
import type { UserStore } from '../store/users.js';
import {
  applyRegistrationPolicy,
  authorizationServerClients,
  isDemoClient,
  MAX_REGISTRATION_BYTES,
  REGISTERED_CLIENT_TTL_SECONDS,
} from './clients.js';
import { interactionRoutes, INTERACTION_PATH } from './interactions.js';
import { AUTHORIZATION_SERVER_ALG, type AuthorizationServerKeys } from './keys.js';
import { faultOf } from '../log.js';
import { clientAddress } from '../auth/login-throttle/client-address.js';
import { registrationLimiter } from './registration-limit.js';
import { errorPage, loggedOutPage, logoutPage, PAGE_CSP, pageCsp, unavailablePage } from './pages.js';

/**
 * Where the authorization server is mounted, below the demo's base URL; it is also the path of
 * its issuer (`http://127.0.0.1:3000/oidc`).
 *
 * @example
 * ```ts
 * `${url}${AUTHORIZATION_SERVER_PATH}/.well-known/openid-configuration`;
 * ```
 */
export const AUTHORIZATION_SERVER_PATH = '/oidc';

/**
 * The authorization server's endpoints below its issuer, as oidc-provider routes them. They
 * are written into the OpenAPI document relative to the demo's origin, so the document does
 * not depend on the port.
 *
 * @example
 * ```ts
 * `${AUTHORIZATION_SERVER_PATH}${AUTHORIZATION_SERVER_ENDPOINTS.token}`; // '/oidc/token'
 * ```
 */
export const AUTHORIZATION_SERVER_ENDPOINTS = {
  authorization: '/auth',
  token: '/token',
  revocation: '/token/revocation',
  registration: '/reg',
  jwks: '/jwks',
  discovery: '/.well-known/openid-configuration',
} as const;

/**
 * Where RFC 8414 §3.1 puts the authorization server's metadata: the well-known path, then the
 * issuer's own path (`/.well-known/oauth-authorization-server/oidc`).
 *
 * @example
 * ```ts
 * await fetch(`${url}${RFC8414_METADATA_PATH}`); // the same document as `${url}/oidc/.well-known/openid-configuration`
 * ```
 */
export const RFC8414_METADATA_PATH = `/.well-known/oauth-authorization-server${AUTHORIZATION_SERVER_PATH}`;

/**
 * What the authorization server is built from.
 *
 * @example
 * ```ts
 * const options: AuthorizationServerOptions = { baseUrl, audience, accessTokenTtlSeconds: 900, refreshTokenTtlSeconds: 2_592_000, keys, users, throttle, payloads };
 * ```
 */
export interface AuthorizationServerOptions {
  /** The demo's base URL, e.g. `http://127.0.0.1:3000`; the issuer is this plus `/oidc`. */
  baseUrl: string;
  /** The API's resource indicator, the `aud` of the JWT access tokens issued for it. */
  audience: string;
  /** Other resources of this server tokens may be issued for (the MCP endpoint), each its own `aud`. */
  resources?: readonly string[];
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  keys: AuthorizationServerKeys;
  users: UserStore;
  throttle: LoginThrottle;
  payloads: OidcPayloadStore;
  /** Clients one address (an IPv6 one by its /64) may register per hour on this server; default {@link REGISTRATIONS_PER_HOUR}. */
  registrationsPerHour?: number;
}

/**
 * A running authorization server: its issuer and key set URL (what the API verifies its tokens
 * with), and the request handler of its routes.
 *
 * @example
 * ```ts
 * const as = createAuthorizationServer(options);
 * http.createServer((req, res) => as.handle(req, res, pathname) || notFound(res));
 * ```
 */
export interface AuthorizationServer {
  issuer: string;
  jwksUrl: string;
  provider: Provider;
  /** Serves `/oidc/…`, `/interaction/…` and its RFC 8414 metadata path; answers `false` for any other path. */
  handle(req: IncomingMessage, res: ServerResponse, pathname: string): boolean;
}

const SCOPE_NAMES = Object.keys(DEMO_SCOPES).join(' ');

/**
 * The scopes of the authorization server's metadata (`scopes_supported`): OpenID Connect's, and
 * the API's, which an MCP client reads there and may name when it registers.
 */
const SUPPORTED_SCOPES = ['openid', 'offline_access', ...Object.keys(DEMO_SCOPES)];

/** How long a login (or consent) page may be left open: the interaction's lifetime, in seconds. */
const INTERACTION_TTL_SECONDS = 10 * 60;

/** How long a logged-in session lasts, in seconds. */
const SESSION_TTL_SECONDS = 24 * 60 * 60;

/** The headers of every page the authorization server renders, as of the login and consent pages. */
const PAGE_HEADERS = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/**
 * The demo's authorization server: oidc-provider mounted at `/oidc`, with login and consent
 * pages on the demo's users. It runs the authorization-code flow with PKCE (S256, required of
 * every client: all are public) for its own clients (Swagger UI, the command-line client, and
 * `demo-mcp` for MCP clients) and for MCP clients that register themselves at `/oidc/reg`
 * (RFC 7591, under `applyRegistrationPolicy`), and
 * issues RFC 9068 JWT access tokens for the API (resource indicator = the API's audience,
 * signed ES256) with the scopes the user may have, refresh tokens that rotate, and revocation
 * (RFC 7009), and DPoP-bound tokens when a client sends a proof (RFC 9449). Its state lives
 * in the demo's database, its keys in `DATA_DIR`.
 *
 * @example
 * ```ts
 * const as = createAuthorizationServer({ baseUrl: demo.url, audience, accessTokenTtlSeconds: 900, refreshTokenTtlSeconds: 86_400, keys, users, throttle, payloads });
 * as.jwksUrl; // 'http://127.0.0.1:3000/oidc/jwks'
 * ```
 */
export function createAuthorizationServer(options: AuthorizationServerOptions): AuthorizationServer {
  const { baseUrl, audience, keys, users, payloads } = options;
  const resources = [audience, ...(options.resources ?? [])];
  const issuer = `${baseUrl}${AUTHORIZATION_SERVER_PATH}`;
  const registrations = registrationLimiter(options.registrationsPerHour);
  const configuration: Configuration = {
    adapter: (model: string) => {
      const adapter = payloads.adapter(model);
      // The demo's own clients are configured, not stored: a stored one registered itself, and
      // oidc-provider saves it with no lifetime, so it gets one (its row expires and is swept).
      if (model !== 'Client') return adapter;
      return { ...adapter, upsert: (id, payload, expiresIn) => adapter.upsert(id, payload, expiresIn ?? REGISTERED_CLIENT_TTL_SECONDS) };
    },
    clients: authorizationServerClients(baseUrl),
    scopes: SUPPORTED_SCOPES,
    // RFC 7591's `software_id` is declared so that oidc-provider calls the validator once for every
    // client it builds: one registering itself (its route) gets the demo's registration policy.
    extraClientMetadata: {
      properties: ['software_id'],
      validator: (ctx, _key, _value, metadata) => {
        if (ctx?.oidc.route === 'registration') applyRegistrationPolicy(ctx.oidc.body ?? {}, metadata as unknown as Record<string, unknown>);
      },
    },
    jwks: { keys: keys.signingKeys as never },
    cookies: { keys: keys.cookieKeys },
    clientDefaults: { id_token_signed_response_alg: AUTHORIZATION_SERVER_ALG },
    // Cross-origin calls of the token, revocation and key set endpoints (a client in a browser
    // page, the MCP Inspector among them) are answered to a public client from the origin of one
    // of its redirect URIs, never from an opaque origin (`null`): the page it sends users back to.
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' && client.clientAuthMethod === 'none' && (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    findAccount: async (_ctx, id) => {
      const user = await users.find(id);
      if (user === null) return undefined;
      return { accountId: user.username, claims: () => ({ sub: user.username, name: user.fullName, email: user.email }) };
    },
    interactions: { url: (_ctx, interaction) => `${INTERACTION_PATH}${interaction.uid}` },
    // The authorization-code flow only: no implicit or hybrid response types.
    responseTypes: ['code'],
    pkce: { required: () => true },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      AccessToken: options.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      RefreshToken: options.refreshTokenTtlSeconds,
      Interaction: INTERACTION_TTL_SECONDS,
      // Anyone can have a session stored without logging in (asking to log out keeps the logout
      // form's secret in one): such a session holds nothing worth keeping past its page, so it
      // lasts as long as an interaction, and a session lasts a day once someone logged in to it.
      Session: (_ctx, session) => (session.accountId === undefined ? INTERACTION_TTL_SECONDS : SESSION_TTL_SECONDS),
      Grant: options.refreshTokenTtlSeconds,
    },
    features: {
      devInteractions: { enabled: false },
      // Dynamic client registration (RFC 7591) at `/oidc/reg`, open as MCP clients expect it, for
      // public clients only (see applyRegistrationPolicy). No registration access token: a client
      // cannot read, change or delete its registration, so nothing is stored beside the client.
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      // A token request with a DPoP proof (RFC 9449) gets an access token bound to its key
      // (`cnf.jkt`, token_type DPoP), and a public client's refresh token bound too; the API
      // checks the binding on every call.
      dPoP: { enabled: true },
      // oidc-provider's own logout pages load a font from a third-party host and carry no CSP:
      // these are the demo's pages, under its page policy.
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx, form) => {
          ctx.type = 'html';
          ctx.set(PAGE_HEADERS);
          ctx.body = logoutPage(form);
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.type = 'html';
          ctx.set(PAGE_HEADERS);
          const client = ctx.oidc.client;
          ctx.body = loggedOutPage(client?.clientName ?? undefined, client !== undefined && !isDemoClient(client.clientId));
        },
      },
      // A client revokes only its own tokens.
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => client.clientId === token.clientId },
      resourceIndicators: {
        enabled: true,
        // Swagger UI does not send `resource`: a request without one is for the API.
        defaultResource: async () => audience,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (ctx, resource) => {
          if (!resources.includes(resource)) throw new errors.InvalidTarget();
          return {
            scope: await scopesFor(ctx.oidc.account?.accountId),
            audience: resource,
            accessTokenTTL: options.accessTokenTtlSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: AUTHORIZATION_SERVER_ALG } },
          };
        },
      },
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.set(PAGE_HEADERS);
      ctx.body = errorPage('The authorization server refused this request', `${out.error}: ${out.error_description ?? ''}`);
    },
  };
  // Once the token endpoint knows whose token it issues (a code's or a refresh token's account),
  // the API's scopes are the ones that user has now: a scope taken away from a user stops at
  // their next refresh, as in the password flow, not when the refresh token expires.
  const scopesFor = async (accountId: string | undefined): Promise<string> => {
    if (accountId === undefined) return SCOPE_NAMES;
    const user = await users.find(accountId);
    return user === null ? '' : user.scopes.filter(isDemoScope).join(' ');
  };
  const provider = new Provider(issuer, configuration);
  // oidc-provider takes a DPoP proof's `jti` as unused when it does not find it, then saves it:
  // requests carrying one proof at once, on this instance or on others sharing the database,
  // could all find it and all be served (RFC 9449 §11.1 allows one). The adapter saves a proof
  // only once (`AlreadyRecordedError` for the others), and a refused save is a replay here, so
  // each call site refuses it with its own error, as it refuses a replay found.
  const { ReplayDetection } = provider;
  const unique = ReplayDetection.unique.bind(ReplayDetection);
  ReplayDetection.unique = async (iss, jti, exp) => {
    try {
      return await unique(iss, jti, exp);
    } catch (error) {
      if (error instanceof AlreadyRecordedError) return false;
      throw error;
    }
  };
  // oidc-provider builds the URLs it sends (discovery, redirects to itself) from the request's
  // host and protocol; as a proxy would, they are set from the issuer on every request (below),
  // so they never follow a `Host` a client made up, and every instance sends the same ones.
  provider.proxy = true;
  // Koa prints every fault's stack (with what the client sent in it); one line without the
  // message instead, as every other face of the demo logs a fault.
  provider.silent = true;
  // Every page oidc-provider renders is under the demo's page policy, the ones it writes itself
  // too (the form that posts a logout or a response on): their one inline script is allowed by
  // its hash, which oidc-provider adds to a `script-src` it finds, and nothing else runs.
  // A form it writes to post a response to the client (`response_mode=form_post`) may post to the
  // client's redirect URI, once the provider has found it registered for the client.
  provider.use(async (ctx, next) => {
    ctx.set({ ...PAGE_HEADERS, 'content-security-policy': `${PAGE_CSP}; script-src 'none'` });
    await next();
    const hashes = String(ctx.response.get('content-security-policy') ?? '').match(/'sha256-[A-Za-z0-9+/=]+'/g);
    if (hashes === null) return;
    const redirectUri = ctx.oidc?.params?.['redirect_uri'];
    const registered = typeof redirectUri === 'string' && ctx.oidc?.client?.redirectUriAllowed(redirectUri) === true;
    ctx.set('content-security-policy', `${registered ? pageCsp(redirectUri) : PAGE_CSP}; script-src ${hashes.join(' ')}`);
  });
  // A registration request (RFC 7591) larger than any MCP client's is refused before it is read;
  // and a body that is no JSON object is RFC 7591's `invalid_client_metadata`, as the rest of its
  // refusals (oidc-provider calls it `invalid_request`). An MCP client in a browser page (the MCP
  // Inspector) registers from its own origin: registration takes no credentials and sets no
  // cookie, so any origin may call it and read the answer (CORS), as it may the metadata.
  provider.use(async (ctx, next) => {
    // The path as oidc-provider's router matches it: a trailing `/` is the same route.
    const atRegistration = ctx.path.replace(/\/+$/, '') === AUTHORIZATION_SERVER_ENDPOINTS.registration;
    if (atRegistration) {
      ctx.set('access-control-allow-origin', '*');
      if (ctx.method === 'OPTIONS') {
        ctx.set({
          'access-control-allow-methods': 'POST',
          'access-control-allow-headers': 'content-type, mcp-protocol-version',
          'access-control-max-age': '3600',
        });
        ctx.status = 204;
        return;
      }
    }
    const registering = ctx.method === 'POST' && atRegistration;
    if (registering && (ctx.request.length ?? 0) > MAX_REGISTRATION_BYTES) {
      ctx.status = 413;
      ctx.set({ 'cache-control': 'no-store', connection: 'close' });
      ctx.body = { error: 'invalid_client_metadata', error_description: `the client metadata must not be larger than ${MAX_REGISTRATION_BYTES} bytes` };
      return;
    }
    // Each registration is stored for 30 days: one address registers so many an hour, as the
    // login throttle answers (429 `slow_down`, `Retry-After`), whatever it sends.
    const retryAfter = registering ? registrations(clientAddress(ctx.req.socket)) : undefined;
    if (retryAfter !== undefined) {
      ctx.status = 429;
      ctx.set({ 'cache-control': 'no-store', 'retry-after': String(retryAfter) });
      ctx.body = { error: 'slow_down', error_description: `Too many clients registered from this address: try again in ${retryAfter} seconds` };
      return;
    }
    await next();
    // A body without a length that oidc-provider stopped reading (past its limit, on any of its
    // routes: registration, token, revocation) is left unread on the connection: closed with the
    // answer, or the next request on it would never be read.
    if (!ctx.req.complete) ctx.set('connection', 'close');
    if (!registering) return;
    const answer = ctx.body as { error?: unknown } | undefined;
    if (ctx.status === 400 && answer?.error === 'invalid_request') answer.error = 'invalid_client_metadata';
  });
  // A database that cannot be reached (PostgreSQL stopped or restarting, a connection lost under
  // the request) is not a bug: the request is answered 503 with `Retry-After`, as the demo's
  // other faces answer it, rather than oidc-provider's 500 `server_error`. oidc-provider answers a
  // fault itself, inside its routes, and reports it as `server_error`: the requests it reported
  // for such a fault are marked, and their answer made a 503 on the way out; a fault thrown past
  // its routes is answered here.
  const unavailable = new WeakSet<object>();
  provider.on('server_error', (ctx, error) => {
    const fault = databaseFaultOf(error);
    if (fault !== undefined) unavailable.add(ctx);
    console.error(`${AUTHORIZATION_SERVER_PATH} request failed: ${faultOf(fault ?? error)}`);
  });
  provider.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const fault = databaseFaultOf(error);
      if (fault === undefined) throw error;
      console.error(`${AUTHORIZATION_SERVER_PATH} request failed: ${faultOf(fault)}`);
      unavailable.add(ctx);
    }
    if (!unavailable.has(ctx)) return;
    ctx.status = 503;
    ctx.remove('location');
    ctx.set({ 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS), 'cache-control': 'no-store' });
    if (ctx.accepts('json', 'html') === 'html') {
      ctx.type = 'html';
      ctx.body = unavailablePage();
    } else {
      ctx.body = { error: 'server_error', error_description: 'The service is unavailable for a moment: try again shortly' };
    }
  });
  const publicOrigin = new URL(issuer);
  const callback = provider.callback();
  const interactions = interactionRoutes({ provider, users, throttle: options.throttle, audience, resources });

  return {
    issuer,
    jwksUrl: `${issuer}${AUTHORIZATION_SERVER_ENDPOINTS.jwks}`,
    provider,
    handle: (req, res, pathname) => {
      // RFC 8414 §3.1: the metadata at the well-known URL its issuer's path goes after (what an
      // MCP client asks first), the same document as OpenID Connect discovery's below the issuer.
      if (pathname === RFC8414_METADATA_PATH) {
        const url = req.url ?? '';
        const query = url.includes('?') ? url.slice(url.indexOf('?')) : '';
        pathname = `${AUTHORIZATION_SERVER_PATH}${AUTHORIZATION_SERVER_ENDPOINTS.discovery}`;
        req.url = `${pathname}${query}`;
      }
      if (pathname === AUTHORIZATION_SERVER_PATH || pathname.startsWith(`${AUTHORIZATION_SERVER_PATH}/`)) {
        // Mounted as a connect app would mount it: oidc-provider reads the mount path from the
        // difference between `originalUrl` and `url`.
        const url = req.url ?? '/';
        req.headers['x-forwarded-host'] = publicOrigin.host;
        req.headers['x-forwarded-proto'] = publicOrigin.protocol.slice(0, -1);
        delete req.headers['x-forwarded-for'];
        Object.assign(req, { originalUrl: url });
        // `/oidc?x` is `/?x` below the mount: oidc-provider's router needs the leading slash.
        const below = url.slice(AUTHORIZATION_SERVER_PATH.length);
        req.url = below.startsWith('/') ? below : `/${below}`;
        callback(req, res);
        return true;
      }
      return interactions(req, res, pathname);
    },
  };
}
