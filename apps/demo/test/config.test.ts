import { describe, expect, it } from 'vitest';
import { configFromEnv, DEFAULT_DATA_DIR, DEFAULTS } from '../src/config.js';

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

  it.each([
    ['PORT', 'http', 'PORT must be an integer from 0 to 65535, got "http"'],
    ['PORT', '70000', 'PORT must be an integer from 0 to 65535, got "70000"'],
    ['ACCESS_TOKEN_TTL', '0', 'ACCESS_TOKEN_TTL must be an integer from 1 to 86400, got "0"'],
    ['REFRESH_TOKEN_TTL', '1.5', 'REFRESH_TOKEN_TTL must be an integer from 1 to 31536000, got "1.5"'],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => configFromEnv({ [name]: value })).toThrow(message);
  });
});
