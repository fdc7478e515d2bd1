import { fileURLToPath } from 'node:url';

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
  /** Where the database and the signing key live; created on first start. */
  dataDir: string;
  /** `iss` of the access tokens; tokens from another issuer are refused. */
  issuer: string;
  /** `aud` of the access tokens; tokens for another audience are refused. */
  audience: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Largest token request body read, in bytes; a larger one gets 413. */
  maxTokenRequestBytes: number;
}

/**
 * `apps/demo/data`, next to `src` and `dist` alike (and gitignored).
 *
 * @example
 * ```ts
 * configFromEnv({}).dataDir === DEFAULT_DATA_DIR; // true
 * ```
 */
export const DEFAULT_DATA_DIR = fileURLToPath(new URL('../data/', import.meta.url));

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
  maxTokenRequestBytes: 16 * 1024,
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
 * Reads `HOST`, `PORT`, `DATA_DIR`, `ISSUER`, `AUDIENCE`, `ACCESS_TOKEN_TTL` and
 * `REFRESH_TOKEN_TTL` (seconds); anything unset keeps its default. A malformed number throws.
 *
 * @example
 * ```ts
 * configFromEnv({ PORT: '8080' }).port; // 8080
 * ```
 */
export function configFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): DemoConfig {
  return {
    host: env.HOST || DEFAULTS.host,
    port: integer('PORT', env.PORT, DEFAULTS.port, 0, 65_535),
    dataDir: env.DATA_DIR || DEFAULT_DATA_DIR,
    issuer: env.ISSUER || DEFAULTS.issuer,
    audience: env.AUDIENCE || DEFAULTS.audience,
    accessTokenTtlSeconds: integer('ACCESS_TOKEN_TTL', env.ACCESS_TOKEN_TTL, DEFAULTS.accessTokenTtlSeconds, 1, 86_400),
    refreshTokenTtlSeconds: integer('REFRESH_TOKEN_TTL', env.REFRESH_TOKEN_TTL, DEFAULTS.refreshTokenTtlSeconds, 1, 31_536_000),
    maxTokenRequestBytes: DEFAULTS.maxTokenRequestBytes,
  };
}
