// Client registration (RFC 7591, /oidc/reg) is open to anyone, and each registered client is kept
// 30 days: one address registers at most so many clients an hour on a server (an IPv6 one counted
// by its /64), and is then answered 429 `slow_down` with `Retry-After`, as the login throttle is.
import { describe, expect, it, vi } from 'vitest';
import { registrationLimiter, registrationNetwork, REGISTRATIONS_PER_HOUR } from '../../src/authorization-server/registration-limit.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();

describe('the registration limit', () => {
  it('counts an IPv4 address alone and an IPv6 one by its /64', () => {
    expect(registrationNetwork('203.0.113.7')).toBe('203.0.113.7');
    expect(registrationNetwork('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(registrationNetwork('2001:DB8:0:0:ffff::2')).toBe('2001:db8:0:0::/64');
    expect(registrationNetwork('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(registrationNetwork('::1')).toBe('0:0:0:0::/64');
  });

  it('lets an address register so many times an hour, then says when it may again', () => {
    const allow = registrationLimiter(3);
    const start = 1_000_000;
    for (let i = 0; i < 3; i++) expect(allow('2001:db8::1', start + i)).toBeUndefined();
    expect(allow('2001:db8::2', start + 10)).toBe(3600); // the same /64
    expect(allow('2001:db8:0:1::1', start + 10)).toBeUndefined(); // another /64
    expect(allow('203.0.113.7', start + 10)).toBeUndefined();
    expect(allow('2001:db8::1', start + 1_800_000)).toBe(1800);
    expect(allow('2001:db8::1', start + 3_600_000)).toBeUndefined(); // a new hour
  });

  it(`answers the registration after the ${REGISTRATIONS_PER_HOUR}th from one address within the hour 429 slow_down, with Retry-After`, async () => {
    const register = () =>
      fetch(`${demo.url}/oidc/reg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:6274/callback'], client_name: 'Counted' }),
      });
    for (let i = 0; i < REGISTRATIONS_PER_HOUR; i++) expect((await register()).status, `registration ${i + 1}`).toBe(201);
    const refused = await register();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(await refused.json()).toEqual({
      error: 'slow_down',
      error_description: `Too many clients registered from this address: try again in ${retryAfter} seconds`,
    });
    // The rest of the authorization server is served as before.
    expect((await fetch(`${demo.url}/oidc/.well-known/openid-configuration`)).status).toBe(200);
  });
});
