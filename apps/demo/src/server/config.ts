import { isIPv4, isIPv6 } from 'node:net';
import { fileURLToPath } from 'node:url';
import { canonicalResource } from '@trpc-oauth2/core/protocol';
import { MAX_TOKEN_REQUEST_BYTES } from '../auth/token-endpoint/request-limit.js';
import type { LoginThrottleSettings } from '../auth/login-throttle/login-throttle.js';
import type { PasswordBudgetSettings } from '../auth/login-throttle/password-budget.js';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../store/database.js';
import { REFRESH_TOKEN_MAX_LIFETIME_SECONDS } from '../store/refresh-tokens.js';

/**
 * Everything the demo server can be told from outside, with the defaults `npm start` uses.
 *
 * @example
 * ```ts
 * const config: DemoConfig = { ...configFromEnv({}), port: 0 };
 * ```
 */
export interface DemoConfig {
  /** Interface to listen on; loopback by default so a demo never faces a network by accident. */
  host: string;
  /** TCP port; `0` lets the OS pick one (tests). */
  port: number;
  /** Where the database (unless `databaseUrl` is set) and the signing key live; created on first start. */
  dataDir: string;
  /**
   * A PostgreSQL server (`postgres://…`) to keep users, refresh tokens and the login throttle's
   * counts in, instead of the embedded database in `dataDir`: then several processes can serve
   * the same data (give them the same signing key, i.e. the same `dataDir`).
   */
  databaseUrl?: string | undefined;
  /**
   * How long a request waits on that PostgreSQL server, in milliseconds
   * (`DATABASE_CONNECT_TIMEOUT_MS`, `DATABASE_QUERY_TIMEOUT_MS`): for a connection (all of the
   * pool's busy, or a new one not ready), and for the answer to a query. Past either, the request
   * is answered 503 with `Retry-After`, as when the server is down, and a connection whose query
   * got no answer is closed rather than used again. Unused with the embedded database.
   */
  databaseTimeouts: DatabaseTimeouts;
  /**
   * The URL people and clients reach the demo at (`PUBLIC_URL`, e.g. `https://demo.example`),
   * when it is not the address it listens on: behind a proxy, or with several instances behind
   * one name. The authorization server's issuer (this plus `/oidc`), every URL of its discovery
   * document and its clients' redirect URIs are built from it, never from a request's `Host`,
   * so every instance given the same one issues and accepts the same tokens. Default: the
   * address it listens on.
   */
  publicUrl?: string | undefined;
  /** `iss` of the access tokens; tokens from another issuer are refused. */
  issuer: string;
  /** `aud` of the access tokens; tokens for another audience are refused. */
  audience: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /**
   * How long the refresh tokens of one login live at most, however often they rotate
   * (`REFRESH_TOKEN_MAX_LIFETIME`): a successor expires after `refreshTokenTtlSeconds` or at the
   * login plus this, whichever comes first, and a family past it is refused and then deleted, so
   * a client refreshing without end does not grow the table without end. Not less than
   * `refreshTokenTtlSeconds` from the environment (refused); given shorter to `start()`, it
   * wins over the TTL.
   */
  refreshTokenMaxLifetimeSeconds: number;
  /** Largest token request body read, in bytes; a larger one gets 413. */
  maxTokenRequestBytes: number;
  /** Failed logins allowed per username and per client address before the token endpoint answers 429. */
  loginThrottle: LoginThrottleSettings;
  /** Password checks one account and one address may have, right or wrong (kept per process). */
  passwordBudget: PasswordBudgetSettings;
}

/**
 * `apps/demo/data` (gitignored), two levels above this module, whether it runs as
 * `src/server/config.ts` or as `dist/server/config.js`.
 *
 * @example
 * ```ts
 * configFromEnv({}).dataDir === DEFAULT_DATA_DIR; // true
 * ```
 */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../data/', import.meta.url));

/**
 * The defaults, except `dataDir`.
 *
 * @example
 * ```ts
 * DEFAULTS.port; // 3000
 * ```
 */
export const DEFAULTS = {
  host: '127.0.0.1',
  port: 3000,
  issuer: 'urn:trpc-oauth2:demo',
  audience: 'urn:trpc-oauth2:demo:api',
  // Short-lived access tokens: they cannot be revoked, so their lifetime is the revocation delay.
  accessTokenTtlSeconds: 15 * 60,
  refreshTokenTtlSeconds: 30 * 24 * 60 * 60,
  // Then the user logs in again, however often the client refreshed: 90 days, three TTLs.
  refreshTokenMaxLifetimeSeconds: REFRESH_TOKEN_MAX_LIFETIME_SECONDS,
  maxTokenRequestBytes: MAX_TOKEN_REQUEST_BYTES,
  // A few seconds: far more than any query of the store takes on a server that answers.
  databaseTimeouts: DEFAULT_DATABASE_TIMEOUTS,
  loginThrottle: {
    // Five guesses at one account per quarter hour: a user who mistypes is not locked out for
    // long, a guesser gets 480 tries a day. A success clears the account's count.
    username: { maxFailures: 5, windowSeconds: 15 * 60 },
    // Wider, for many users behind one address, but it stops one client trying one password
    // against many accounts (password spraying), which the per-username limit cannot see.
    address: { maxFailures: 20, windowSeconds: 15 * 60 },
    // Per map; with the oldest window dropped beyond it, memory stays bounded under a flood.
    maxEntries: 10_000,
  },
  passwordBudget: {
    // Ten logins at once, then one every two seconds, per account: more than a person types, a
    // small share of the one or two scrypt checks a second a core computes.
    account: { burst: 10, perSecond: 0.5 },
    // Wider, for many users behind one address.
    address: { burst: 60, perSecond: 5 },
    maxEntries: 10_000,
  },
} as const satisfies Omit<DemoConfig, 'dataDir'>;

const integer = (name: string, value: string | undefined, fallback: number, min: number, max: number): number => {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min || parsed > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return parsed;
};

/**
 * `value` as the refresh-token families' maximum lifetime (seconds, up to ten years): not shorter
 * than `ttlSeconds`, which it would silently cut; unset, the default or `ttlSeconds` if longer,
 * so that setting only a long `REFRESH_TOKEN_TTL` keeps working.
 *
 * @example
 * ```ts
 * maxLifetime('REFRESH_TOKEN_MAX_LIFETIME', '7200', 3600); // 7200
 * ```
 */
export function maxLifetime(name: string, value: string | undefined, ttlSeconds: number): number {
  const seconds = integer(name, value, Math.max(DEFAULTS.refreshTokenMaxLifetimeSeconds, ttlSeconds), 1, 315_360_000);
  if (seconds < ttlSeconds) {
    throw new RangeError(`${name} must not be shorter than REFRESH_TOKEN_TTL (${ttlSeconds} seconds), got ${JSON.stringify(value)}`);
  }
  return seconds;
}

/**
 * `value` as a public base URL: `http:` or `https:`, an origin only (no path, credentials, query
 * or fragment), without a trailing slash; `undefined` when unset. Anything else throws.
 *
 * @example
 * ```ts
 * publicUrl('PUBLIC_URL', 'https://demo.example/'); // 'https://demo.example'
 * ```
 */
export function publicUrl(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const refuse = (why: string) => new RangeError(`${name} must be an http(s) URL ${why}, got ${JSON.stringify(value)}`);
  if (!URL.canParse(value)) throw refuse('such as https://demo.example');
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('such as https://demo.example');
  // The demo serves its routes at the root: a path would need a proxy to strip it.
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw refuse('without path, credentials, query or fragment');
  }
  // The MCP endpoint's resource is this URL plus `/mcp`, and a protected resource is named by an
  // https URL (http on a loopback host only): checked now, not when the server starts.
  try {
    canonicalResource(`${url.origin}/mcp`, name);
  } catch {
    throw refuse('on https (http only on a loopback host: 127.0.0.0/8, [::1], localhost), since the MCP resource is named under it');
  }
  return url.origin;
}

/**
 * The URL a server listening on `host` names itself by when no public URL is set (as `start`'s
 * `listeningUrl` names it once it listens, without the port): an IP address as it is written in a
 * URL, `localhost` for `localhost` and for every interface (`0.0.0.0`, `::`); `undefined` for any
 * other name, whose address is known only once it is resolved and bound.
 */
function selfUrl(host: string): string | undefined {
  if (host === '0.0.0.0' || host.toLowerCase() === 'localhost') return 'http://localhost';
  if (isIPv4(host)) return `http://${host}`;
  if (!isIPv6(host) || !URL.canParse(`http://[${host}]`)) return undefined;
  const url = new URL(`http://[${host}]`);
  return url.hostname === '[::]' ? 'http://localhost' : url.origin;
}

/**
 * `value` as the address to listen on (default {@link DEFAULTS}' `127.0.0.1`). Without a public
 * URL the demo names its issuer and its MCP resource after this address, and a resource is named
 * by an https URL (http on a loopback host only, the rule of `@trpc-oauth2/core`'s `secureUrl`):
 * so the host must then be a loopback address (127.0.0.0/8, `::1`, `localhost`) or every interface
 * (`0.0.0.0`, `::`, named `localhost`), else this throws, before anything listens. With a
 * public URL any host goes.
 *
 * @example
 * ```ts
 * listenHost('HOST', '127.0.0.2', undefined); // '127.0.0.2'
 * listenHost('HOST', '192.0.2.2', 'https://demo.example'); // '192.0.2.2'
 * listenHost('HOST', '192.0.2.2', undefined); // throws RangeError: HOST must be a loopback address …
 * ```
 */
export function listenHost(name: string, value: string | undefined, publicUrlValue: string | undefined): string {
  const host = value || DEFAULTS.host;
  if (publicUrlValue !== undefined) return host;
  const self = selfUrl(host);
  try {
    if (self === undefined) throw new TypeError('not an address');
    canonicalResource(`${self}/mcp`, name);
  } catch {
    throw new RangeError(
      `${name} must be a loopback address (127.0.0.0/8, ::1, localhost) or 0.0.0.0 or :: when PUBLIC_URL is unset, since the demo then names its issuer and its MCP resource after the address it listens on (http on a loopback host only): set PUBLIC_URL to the https URL clients reach it at, got ${JSON.stringify(host)}`,
    );
  }
  return host;
}

/**
 * Reads `HOST`, `PORT`, `PUBLIC_URL`, `DATA_DIR`, `DATABASE_URL`, `DATABASE_CONNECT_TIMEOUT_MS` and
 * `DATABASE_QUERY_TIMEOUT_MS` (milliseconds), `ISSUER`, `AUDIENCE`, `ACCESS_TOKEN_TTL`,
 * `REFRESH_TOKEN_TTL` and `REFRESH_TOKEN_MAX_LIFETIME` (seconds), and the login throttle's `LOGIN_USERNAME_LIMIT`,
 * `LOGIN_USERNAME_WINDOW`, `LOGIN_ADDRESS_LIMIT`, `LOGIN_ADDRESS_WINDOW` (failures, seconds) and
 * `LOGIN_THROTTLE_ENTRIES`; anything unset keeps its default. A malformed number throws, and so
 * does a `REFRESH_TOKEN_MAX_LIFETIME` shorter than the refresh TTL; unset, it is 90 days or the
 * refresh TTL if longer. Without `PUBLIC_URL`, a `HOST` the demo cannot name itself by throws
 * (see {@link listenHost}).
 *
 * @example
 * ```ts
 * configFromEnv({ PORT: '8080' }).port; // 8080
 * ```
 */
export function configFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): DemoConfig {
  const throttle = DEFAULTS.loginThrottle;
  const refreshTokenTtlSeconds = integer('REFRESH_TOKEN_TTL', env.REFRESH_TOKEN_TTL, DEFAULTS.refreshTokenTtlSeconds, 1, 31_536_000);
  const publicUrlValue = publicUrl('PUBLIC_URL', env.PUBLIC_URL);
  return {
    host: listenHost('HOST', env.HOST, publicUrlValue),
    port: integer('PORT', env.PORT, DEFAULTS.port, 0, 65_535),
    dataDir: env.DATA_DIR || DEFAULT_DATA_DIR,
    databaseUrl: env.DATABASE_URL || undefined,
    databaseTimeouts: {
      connectMs: integer('DATABASE_CONNECT_TIMEOUT_MS', env.DATABASE_CONNECT_TIMEOUT_MS, DEFAULTS.databaseTimeouts.connectMs, 1, 600_000),
      queryMs: integer('DATABASE_QUERY_TIMEOUT_MS', env.DATABASE_QUERY_TIMEOUT_MS, DEFAULTS.databaseTimeouts.queryMs, 1, 600_000),
    },
    publicUrl: publicUrlValue,
    issuer: env.ISSUER || DEFAULTS.issuer,
    audience: env.AUDIENCE || DEFAULTS.audience,
    accessTokenTtlSeconds: integer('ACCESS_TOKEN_TTL', env.ACCESS_TOKEN_TTL, DEFAULTS.accessTokenTtlSeconds, 1, 86_400),
    refreshTokenTtlSeconds,
    refreshTokenMaxLifetimeSeconds: maxLifetime('REFRESH_TOKEN_MAX_LIFETIME', env.REFRESH_TOKEN_MAX_LIFETIME, refreshTokenTtlSeconds),
    maxTokenRequestBytes: DEFAULTS.maxTokenRequestBytes,
    loginThrottle: {
      username: {
        maxFailures: integer('LOGIN_USERNAME_LIMIT', env.LOGIN_USERNAME_LIMIT, throttle.username.maxFailures, 1, 1_000_000),
        windowSeconds: integer('LOGIN_USERNAME_WINDOW', env.LOGIN_USERNAME_WINDOW, throttle.username.windowSeconds, 1, 86_400),
      },
      address: {
        maxFailures: integer('LOGIN_ADDRESS_LIMIT', env.LOGIN_ADDRESS_LIMIT, throttle.address.maxFailures, 1, 1_000_000),
        windowSeconds: integer('LOGIN_ADDRESS_WINDOW', env.LOGIN_ADDRESS_WINDOW, throttle.address.windowSeconds, 1, 86_400),
      },
      maxEntries: integer('LOGIN_THROTTLE_ENTRIES', env.LOGIN_THROTTLE_ENTRIES, throttle.maxEntries, 1, 1_000_000),
    },
    passwordBudget: DEFAULTS.passwordBudget,
  };
}

