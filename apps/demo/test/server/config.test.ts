import { describe, expect, it } from 'vitest';
import { mcpResource } from '../../src/mcp/mcp-server.js';
import { configFromEnv, DEFAULT_DATA_DIR, DEFAULTS } from '../../src/server/config.js';
import { listeningUrl } from '../../src/server/start.js';

describe('configFromEnv', () => {
  it('defaults to loopback port 3000 and the app’s data directory', () => {
    expect(configFromEnv({})).toEqual({ ...DEFAULTS, dataDir: DEFAULT_DATA_DIR });
    expect(DEFAULT_DATA_DIR).toMatch(/apps\/demo\/data\/$/);
  });

  it('reads HOST, PORT, DATA_DIR and the token settings', () => {
    expect(
      configFromEnv({ HOST: '0.0.0.0', PORT: '8080', DATA_DIR: '/tmp/d', ACCESS_TOKEN_TTL: '60', REFRESH_TOKEN_TTL: '3600', ISSUER: 'urn:i', AUDIENCE: 'urn:a' }),
    ).toMatchObject({ host: '0.0.0.0', port: 8080, dataDir: '/tmp/d', accessTokenTtlSeconds: 60, refreshTokenTtlSeconds: 3600, issuer: 'urn:i', audience: 'urn:a' });
  });

  it('reads REFRESH_TOKEN_MAX_LIFETIME: 90 days unset, or the refresh TTL when that is longer', () => {
    expect(DEFAULTS.refreshTokenMaxLifetimeSeconds).toBe(90 * 24 * 60 * 60);
    expect(configFromEnv({}).refreshTokenMaxLifetimeSeconds).toBe(7_776_000);
    expect(configFromEnv({ REFRESH_TOKEN_MAX_LIFETIME: '5184000' }).refreshTokenMaxLifetimeSeconds).toBe(5_184_000);
    expect(configFromEnv({ REFRESH_TOKEN_TTL: '60', REFRESH_TOKEN_MAX_LIFETIME: '60' })).toMatchObject({ refreshTokenTtlSeconds: 60, refreshTokenMaxLifetimeSeconds: 60 });
    // Only a long TTL set: the lifetime follows it, as before the lifetime existed.
    expect(configFromEnv({ REFRESH_TOKEN_TTL: '31536000' }).refreshTokenMaxLifetimeSeconds).toBe(31_536_000);
    expect(configFromEnv({ REFRESH_TOKEN_MAX_LIFETIME: '315360000' }).refreshTokenMaxLifetimeSeconds).toBe(315_360_000);
  });

  it('refuses a REFRESH_TOKEN_MAX_LIFETIME shorter than the refresh TTL', () => {
    expect(() => configFromEnv({ REFRESH_TOKEN_MAX_LIFETIME: '86400', REFRESH_TOKEN_TTL: '86401' })).toThrow(
      'REFRESH_TOKEN_MAX_LIFETIME must not be shorter than REFRESH_TOKEN_TTL (86401 seconds), got "86400"',
    );
    // The default TTL is 30 days.
    expect(() => configFromEnv({ REFRESH_TOKEN_MAX_LIFETIME: '3600' })).toThrow(
      'REFRESH_TOKEN_MAX_LIFETIME must not be shorter than REFRESH_TOKEN_TTL (2592000 seconds), got "3600"',
    );
  });

  it('reads the login throttle’s limits and windows', () => {
    expect(
      configFromEnv({
        LOGIN_USERNAME_LIMIT: '10',
        LOGIN_USERNAME_WINDOW: '60',
        LOGIN_ADDRESS_LIMIT: '100000',
        LOGIN_ADDRESS_WINDOW: '3600',
        LOGIN_THROTTLE_ENTRIES: '500',
      }).loginThrottle,
    ).toEqual({ username: { maxFailures: 10, windowSeconds: 60 }, address: { maxFailures: 100_000, windowSeconds: 3600 }, maxEntries: 500 });
    expect(DEFAULTS.loginThrottle).toEqual({
      username: { maxFailures: 5, windowSeconds: 900 },
      address: { maxFailures: 20, windowSeconds: 900 },
      maxEntries: 10_000,
    });
  });

  it('reads the database timeouts (milliseconds), a few seconds unset, and refuses one that is not a positive integer', () => {
    expect(DEFAULTS.databaseTimeouts).toEqual({ connectMs: 5_000, queryMs: 10_000 });
    expect(configFromEnv({ DATABASE_CONNECT_TIMEOUT_MS: '250', DATABASE_QUERY_TIMEOUT_MS: '1500' }).databaseTimeouts).toEqual({ connectMs: 250, queryMs: 1_500 });
    expect(configFromEnv({ DATABASE_QUERY_TIMEOUT_MS: '2000' }).databaseTimeouts).toEqual({ connectMs: 5_000, queryMs: 2_000 });
    // 0 would mean "wait for ever" to the driver: the very thing the timeouts are there to stop.
    expect(() => configFromEnv({ DATABASE_CONNECT_TIMEOUT_MS: '0' })).toThrow('DATABASE_CONNECT_TIMEOUT_MS must be an integer from 1 to 600000, got "0"');
    expect(() => configFromEnv({ DATABASE_QUERY_TIMEOUT_MS: '2.5' })).toThrow('DATABASE_QUERY_TIMEOUT_MS must be an integer from 1 to 600000, got "2.5"');
  });

  it('reads PUBLIC_URL, without its trailing slash', () => {
    expect(configFromEnv({}).publicUrl).toBeUndefined();
    expect(configFromEnv({ PUBLIC_URL: 'https://demo.example/' }).publicUrl).toBe('https://demo.example');
    expect(configFromEnv({ PUBLIC_URL: 'http://127.0.0.1:3000' }).publicUrl).toBe('http://127.0.0.1:3000');
    expect(configFromEnv({ PUBLIC_URL: 'http://localhost:3000' }).publicUrl).toBe('http://localhost:3000');
    expect(configFromEnv({ PUBLIC_URL: 'http://[::1]:3000' }).publicUrl).toBe('http://[::1]:3000');
    // Any of 127.0.0.0/8 is a loopback host, as the client and @trpc-oauth2/core count them.
    expect(configFromEnv({ PUBLIC_URL: 'http://127.0.0.2:3000' }).publicUrl).toBe('http://127.0.0.2:3000');
    expect(configFromEnv({ PUBLIC_URL: 'http://127.255.255.255' }).publicUrl).toBe('http://127.255.255.255');
  });

  // Without PUBLIC_URL the demo names itself after the address it listens on (listeningUrl), and
  // its MCP resource under that: a HOST that URL cannot name is refused before anything listens.
  it.each(['127.0.0.1', '127.0.0.2', '127.255.255.255', '::1', '0:0:0:0:0:0:0:1', 'localhost', '0.0.0.0', '::'])('accepts HOST=%s without PUBLIC_URL', (host) => {
    expect(configFromEnv({ HOST: host }).host).toBe(host);
    if (host === '0.0.0.0' || host === '::' || host === 'localhost') return;
    const address = new URL(`http://${host.includes(':') ? `[${host}]` : host}`).hostname.replace(/^\[|\]$/g, '');
    expect(mcpResource(listeningUrl({ address, family: host.includes(':') ? 'IPv6' : 'IPv4', port: 3000 }))).toMatch(/^http:\/\/.*:3000\/mcp$/);
  });

  it.each(['192.0.2.2', '10.0.0.1', '128.0.0.1', 'fd00::2', '::ffff:127.0.0.1', 'demo.example', 'localhost.demo.example'])(
    'refuses HOST=%s without PUBLIC_URL, and takes it with an https PUBLIC_URL',
    (host) => {
      expect(() => configFromEnv({ HOST: host })).toThrow(
        new RangeError(
          `HOST must be a loopback address (127.0.0.0/8, ::1, localhost) or 0.0.0.0 or :: when PUBLIC_URL is unset, since the demo then names its issuer and its MCP resource after the address it listens on (http on a loopback host only): set PUBLIC_URL to the https URL clients reach it at, got ${JSON.stringify(host)}`,
        ),
      );
      expect(configFromEnv({ HOST: host, PUBLIC_URL: 'https://demo.example' })).toMatchObject({ host, publicUrl: 'https://demo.example' });
    },
  );

  it('names the URL of a server listening on every interface after localhost, which its MCP resource can name', () => {
    expect(listeningUrl({ address: '0.0.0.0', family: 'IPv4', port: 3000 })).toBe('http://localhost:3000');
    expect(listeningUrl({ address: '::', family: 'IPv6', port: 3000 })).toBe('http://localhost:3000');
    expect(listeningUrl({ address: '127.0.0.1', family: 'IPv4', port: 3000 })).toBe('http://127.0.0.1:3000');
    expect(listeningUrl({ address: '::1', family: 'IPv6', port: 3000 })).toBe('http://[::1]:3000');
    for (const address of ['0.0.0.0', '::']) expect(mcpResource(listeningUrl({ address, family: 'IPv4', port: 3000 }))).toBe('http://localhost:3000/mcp');
  });

  it.each([
    ['PUBLIC_URL', 'not-a-url', 'PUBLIC_URL must be an http(s) URL such as https://demo.example, got "not-a-url"'],
    ['PUBLIC_URL', 'ftp://demo.example', 'PUBLIC_URL must be an http(s) URL such as https://demo.example, got "ftp://demo.example"'],
    ['PUBLIC_URL', 'https://demo.example/?x=1', 'PUBLIC_URL must be an http(s) URL without path, credentials, query or fragment, got "https://demo.example/?x=1"'],
    ['PUBLIC_URL', 'https://demo.example/demo', 'PUBLIC_URL must be an http(s) URL without path, credentials, query or fragment, got "https://demo.example/demo"'],
    [
      'PUBLIC_URL',
      'http://demo.local:3000',
      'PUBLIC_URL must be an http(s) URL on https (http only on a loopback host: 127.0.0.0/8, [::1], localhost), since the MCP resource is named under it, got "http://demo.local:3000"',
    ],
    [
      'PUBLIC_URL',
      'http://128.0.0.1:3000',
      'PUBLIC_URL must be an http(s) URL on https (http only on a loopback host: 127.0.0.0/8, [::1], localhost), since the MCP resource is named under it, got "http://128.0.0.1:3000"',
    ],
    ['LOGIN_USERNAME_LIMIT', '0', 'LOGIN_USERNAME_LIMIT must be an integer from 1 to 1000000, got "0"'],
    ['LOGIN_ADDRESS_WINDOW', '1h', 'LOGIN_ADDRESS_WINDOW must be an integer from 1 to 86400, got "1h"'],
    ['LOGIN_THROTTLE_ENTRIES', '-1', 'LOGIN_THROTTLE_ENTRIES must be an integer from 1 to 1000000, got "-1"'],
    ['PORT', 'http', 'PORT must be an integer from 0 to 65535, got "http"'],
    ['PORT', '70000', 'PORT must be an integer from 0 to 65535, got "70000"'],
    ['ACCESS_TOKEN_TTL', '0', 'ACCESS_TOKEN_TTL must be an integer from 1 to 86400, got "0"'],
    ['REFRESH_TOKEN_TTL', '1.5', 'REFRESH_TOKEN_TTL must be an integer from 1 to 31536000, got "1.5"'],
    ['REFRESH_TOKEN_MAX_LIFETIME', '90d', 'REFRESH_TOKEN_MAX_LIFETIME must be an integer from 1 to 315360000, got "90d"'],
    ['REFRESH_TOKEN_MAX_LIFETIME', '0', 'REFRESH_TOKEN_MAX_LIFETIME must be an integer from 1 to 315360000, got "0"'],
    ['REFRESH_TOKEN_MAX_LIFETIME', '315360001', 'REFRESH_TOKEN_MAX_LIFETIME must be an integer from 1 to 315360000, got "315360001"'],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => configFromEnv({ [name]: value })).toThrow(message);
  });
});
