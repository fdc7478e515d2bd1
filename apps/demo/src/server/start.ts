import { MCP_PATH, mcpResource } from '../mcp/mcp-server.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ItemFeed } from '../api/item-feed.js';
import { apiDocument } from '../api/openapi.js';
import type { Services } from '../api/trpc.js';
import { jwtVerifier } from '@trpc-oauth2/jwt';
import type { Principal, TokenVerifier } from '@trpc-oauth2/core';
import type { JWK } from 'jose';
import { AccessTokens } from '../auth/access-tokens.js';
import { LoginThrottle } from '../auth/login-throttle/login-throttle.js';
import { PasswordBudget } from '../auth/login-throttle/password-budget.js';
import { PasswordQueue } from '../store/password-queue.js';
import { loadOrCreateSigningKey } from '../auth/signing-key.js';
import { TokenService } from '../auth/token-endpoint/service.js';
import { loadDPoP } from '../auth/dpop.js';
import { createAuthorizationServer } from '../authorization-server/authorization-server.js';
import { AUTHORIZATION_SERVER_ALG, loadOrCreateAuthorizationServerKeys } from '../authorization-server/keys.js';
import { conformanceDocument } from '../conformance/openapi.js';
import { openStore } from '../store/index.js';
import { ITEM_CHANGES_CHANNEL } from '../store/users.js';
import { DEFAULT_DATA_DIR, DEFAULTS, type DemoConfig } from './config.js';
import { demoRequestListener, serveWebSockets } from './http-server.js';

/**
 * A running demo server.
 *
 * @example
 * ```ts
 * const demo: RunningDemo = await start({ port: 0 });
 * await fetch(`${demo.url}/api/users/me`);
 * await demo.close();
 * ```
 */
export interface RunningDemo {
  /** Base URL, e.g. `http://127.0.0.1:3000` (no trailing slash). */
  url: string;
  config: DemoConfig;
  /** Users created by this start (the seed runs only into an empty database). */
  seeded: string[];
  /** Stops accepting connections, lets requests in flight finish (briefly), closes the database. */
  close(): Promise<void>;
}

/**
 * What {@link start} accepts: any setting of {@link DemoConfig}, and the clock of the login
 * throttle (milliseconds since the epoch), which tests move forward instead of waiting.
 *
 * @example
 * ```ts
 * let now = Date.now();
 * const demo = await start({ port: 0, clock: () => now });
 * now += 15 * 60 * 1000; // the throttle's windows have ended
 * ```
 */
export interface StartOptions extends Partial<DemoConfig> {
  clock?: () => number;
  /** Where every password hash takes its turn; one per process by default. */
  passwordQueue?: PasswordQueue;
}

/**
 * The verifier of the resource a request is for: the MCP endpoint's on its path, the API's
 * everywhere else (the API's readers see the MCP endpoint's requests when its tools call them).
 */
function byResource<$Principal extends Principal>({ api, mcp }: { api: TokenVerifier<$Principal>; mcp: TokenVerifier<$Principal> }): TokenVerifier<$Principal> {
  return (token, options) => (options !== undefined && new URL(options.request.url).pathname === MCP_PATH ? mcp : api)(token, options);
}

/** The public half of an EC signing key: without `d`. */
const publicJwk = ({ d: _private, ...jwk }: JWK): JWK => jwk;

// Requests still running this long after close() are cut off.
const CLOSE_GRACE_MS = 2_000;

/**
 * Starts the demo: opens (and on first start creates and seeds) the store in
 * `config.dataDir`, loads or creates the signing key, and listens. Options default to
 * {@link DEFAULTS}; `main.ts` passes what the environment says.
 *
 * @example
 * ```ts
 * const demo = await start({ port: 0, dataDir: await mkdtemp(join(tmpdir(), 'demo-')) });
 * ```
 */
export async function start({ clock, passwordQueue, ...options }: StartOptions = {}): Promise<RunningDemo> {
  const config: DemoConfig = { ...DEFAULTS, dataDir: DEFAULT_DATA_DIR, ...options };
  const store = await openStore({ ...config, passwords: passwordQueue ?? new PasswordQueue() });
  const { users, refreshTokens, seeded } = store;
  try {
    const key = await loadOrCreateSigningKey(config.dataDir);
    const authorizationServerKeys = await loadOrCreateAuthorizationServerKeys(config.dataDir);
    const accessTokens = new AccessTokens({
      key,
      issuer: config.issuer,
      audience: config.audience,
      ttlSeconds: config.accessTokenTtlSeconds,
    });
    // The budget runs on the real clock, whatever `clock` says: it meters CPU time as it passes.
    const throttle = new LoginThrottle(store.db, config.loginThrottle, clock, new PasswordBudget(config.passwordBudget));
    const documents = { api: apiDocument(), conformance: conformanceDocument() };
    // The authorization server's issuer is the public URL, or else this server's URL, known once
    // it listens: the routes are attached right after, in the same tick, before any request.
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    let stopWebSockets: () => Promise<void>;
    const address = server.address() as AddressInfo;
    const { port } = address;
    const url = listeningUrl(address);
    try {
      // The MCP endpoint's resource identifier, under the public URL as the issuer is: the one
      // string its tokens are issued for, its verifier accepts and its metadata advertises.
      const mcp = mcpResource(config.publicUrl ?? url);
      const authorizationServer = createAuthorizationServer({
        baseUrl: config.publicUrl ?? url,
        audience: config.audience,
        resources: [mcp],
        accessTokenTtlSeconds: config.accessTokenTtlSeconds,
        refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
        keys: authorizationServerKeys,
        users,
        throttle,
        payloads: store.oidcPayloads,
      });
      // One verifier per resource (RFC 8707): a token issued for the MCP endpoint is accepted
      // there (its tools call the API's procedures with it) and nowhere else, and the API's
      // tokens are refused at the MCP endpoint.
      const authorizationServerVerifier = (audience: string) =>
        jwtVerifier({
          key: publicJwk(authorizationServerKeys.signingKeys[0]!),
          algorithms: [AUTHORIZATION_SERVER_ALG],
          issuer: authorizationServer.issuer,
          audience,
          requireAccessTokenType: true,
          maxTokenAge: config.accessTokenTtlSeconds,
        });
      const mcpTokens = authorizationServerVerifier(mcp);
      // Items are added through any server sharing the database: each one's notice (see
      // `UserStore.addItem`) wakes the user's streams here too; after notices were lost, all of them.
      const itemFeed = new ItemFeed();
      await store.db.listen(ITEM_CHANGES_CHANNEL, (username) => itemFeed.notify(username), () => itemFeed.notifyAll());
      const services: Services = {
        users,
        accessTokens,
        // Verified with the key in DATA_DIR itself, not fetched from the issuer's key set URL:
        // an instance behind a public URL need not reach itself through it. The MCP endpoint's
        // reader verifies with the same verifier.
        authorizationServerTokens: byResource({
          api: authorizationServerVerifier(config.audience),
          mcp: mcpTokens,
        }),
        tokens: new TokenService({ users, accessTokens, refreshTokens, throttle }),
        dpop: await loadDPoP({ dataDir: config.dataDir, replay: store.dpopProofs, origin: config.publicUrl ?? url }),
        itemFeed,
      };
      server.on(
        'request',
        demoRequestListener({ services, documents, authorizationServer, mcp: { resource: mcp, verify: mcpTokens } }),
      );
      stopWebSockets = serveWebSockets(server, services);
    } catch (error) {
      server.close();
      throw error;
    }
    let closing: Promise<void> | undefined;
    return {
      url,
      config: { ...config, port },
      seeded,
      close: () =>
        (closing ??= (async () => {
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          await stopWebSockets();
          server.closeIdleConnections();
          const cutOff = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
          await closed;
          clearTimeout(cutOff);
          await store.close();
        })()),
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * The URL of a server listening at `address`. Listening on every interface (`HOST=0.0.0.0` or
 * `::`), it is reached on this machine at localhost: without a `PUBLIC_URL` that is its URL (the
 * issuer's, the MCP resource's), which a wildcard address cannot name.
 *
 * @example
 * ```ts
 * listeningUrl({ address: '0.0.0.0', family: 'IPv4', port: 3000 }); // 'http://localhost:3000'
 * listeningUrl({ address: '::1', family: 'IPv6', port: 3000 });    // 'http://[::1]:3000'
 * ```
 */
export function listeningUrl({ address, family, port }: Pick<AddressInfo, 'address' | 'family' | 'port'>): string {
  const wildcard = address === '0.0.0.0' || address === '::';
  const host = wildcard ? 'localhost' : family === 'IPv6' ? `[${address}]` : address;
  return `http://${host}:${port}`;
}
