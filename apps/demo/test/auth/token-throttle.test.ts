import { describe, expect, it, vi } from 'vitest';
import { demoClient, refusalOf } from '../../src/client/demo-client.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { postTokenFrom, requestFrom, trpcTokenFrom } from '../support/from-address.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

// The throttle's clock: tests move it instead of waiting.
const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
const advance = (seconds: number) => (clock.now += seconds * 1000);

const demo = demoForThisFile({
  loginThrottle: { username: { maxFailures: 3, windowSeconds: 60 }, address: { maxFailures: 6, windowSeconds: 120 }, maxEntries: 1_000 },
  clock: () => clock.now,
});

const alice = { username: 'alice', password: 'wonderland' };
const slowDown = (seconds: number) => ({
  error: 'slow_down',
  error_description: `Too many failed login attempts: try again in ${seconds} seconds`,
});

// Each test plays its clients from loopback addresses of its own, so the per-address counts of
// one test do not reach another's.
describe('the login throttle on POST /api/token', () => {
  it('refuses a username after 3 failures with 429, Retry-After and an RFC 6749 body, from any address, until its window ends', async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await postTokenFrom('127.0.0.2', demo.url, { username: 'bob', password: 'guess' })).status).toBe(400);
    }
    const refused = await postTokenFrom('127.0.0.2', demo.url, { username: 'bob', password: 'builder' });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(slowDown(60));
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.headers.get('content-type')).toBe('application/json');
    // The username is refused from another address too; the address may still log others in.
    advance(25);
    const elsewhere = await postTokenFrom('127.0.0.3', demo.url, { username: 'bob', password: 'builder' });
    expect({ status: elsewhere.status, retryAfter: elsewhere.headers.get('retry-after') }).toEqual({ status: 429, retryAfter: '35' });
    expect((await postTokenFrom('127.0.0.2', demo.url, alice)).status).toBe(200);
    advance(35);
    const after = await postTokenFrom('127.0.0.3', demo.url, { username: 'bob', password: 'builder' });
    expect(after.status).toBe(200);
    expect(after.body.scope).toBe('me');
  });

  it('lets a success clear the username’s failures', async () => {
    const wrong = () => postTokenFrom('127.0.0.4', demo.url, { username: 'alice', password: 'guess' });
    expect([(await wrong()).status, (await wrong()).status]).toEqual([400, 400]);
    expect((await postTokenFrom('127.0.0.4', demo.url, alice)).status).toBe(200);
    // Without the reset this would be the third and fourth failures: 400, then 429.
    expect([(await wrong()).status, (await wrong()).status]).toEqual([400, 400]);
  });

  it('refuses an address after 6 failures over any usernames (password spraying), and only that address', async () => {
    for (const username of ['u1', 'u2', 'u3', 'u4', 'u5', 'u6']) {
      expect((await postTokenFrom('127.0.0.5', demo.url, { username, password: 'Spring2030!' })).status).toBe(400);
    }
    advance(20);
    const refused = await postTokenFrom('127.0.0.5', demo.url, alice);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual(slowDown(100));
    expect(refused.headers.get('retry-after')).toBe('100');
    expect((await postTokenFrom('127.0.0.6', demo.url, alice)).status).toBe(200);
  });

  it('counts a wrong client secret against the address, not the user', async () => {
    const cli = { client_id: 'demo-cli', client_secret: 'guess' };
    for (let i = 0; i < 6; i += 1) expect((await postTokenFrom('127.0.0.7', demo.url, { ...alice, ...cli })).status).toBe(401);
    expect((await postTokenFrom('127.0.0.7', demo.url, alice)).status).toBe(429);
    expect((await postTokenFrom('127.0.0.8', demo.url, alice)).status).toBe(200);
  });

  it('does not count refusals that guess nothing (an unknown scope)', async () => {
    for (let i = 0; i < 8; i += 1) {
      const response = await postTokenFrom('127.0.0.9', demo.url, { ...alice, scope: 'admin' });
      expect(response.body.error).toBe('invalid_scope');
    }
    expect((await postTokenFrom('127.0.0.9', demo.url, alice)).status).toBe(200);
  });

  it('counts guesses sent together before any is answered: no more than the limit get checked', async () => {
    const guesses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => postTokenFrom(`127.0.1.${i + 1}`, demo.url, { username: 'dave', password: `guess-${i}` })),
    );
    expect(guesses.map((response) => response.status).sort()).toEqual([400, 400, 400, 429, 429, 429]);
  });
});

// RFC 6749 §2.3.1: brute force of client secrets is stopped wherever clients authenticate, not
// only beside a password.
describe('wrong client secrets on the endpoints without a password', () => {
  const wrongCli = { client_id: 'demo-cli', client_secret: 'guess' };
  const rightCli = { client_id: 'demo-cli', client_secret: 'demo-cli-secret' };
  const revokeFrom = (address: string, fields: Record<string, string>) =>
    requestFrom(address, `${demo.url}/api/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  const trpcRevokeFrom = (address: string, input: Record<string, string>) =>
    requestFrom(address, `${demo.url}/trpc/auth.revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ json: input }),
    });
  const endpoints: [string, (address: string, client: Record<string, string>) => Promise<{ status: number; headers: Headers }>][] = [
    ['the refresh grant', (address, client) => postTokenFrom(address, demo.url, { grant_type: 'refresh_token', refresh_token: 'r', ...client })],
    ['POST /api/revoke', (address, client) => revokeFrom(address, { token: 'r', ...client })],
    ['auth.revoke (tRPC)', (address, client) => trpcRevokeFrom(address, { token: 'r', ...client })],
  ];

  it.each(endpoints.map(([name, send], i) => [name, send, `127.0.3.${i + 1}`] as const))(
    'on %s: 6 wrong secrets get 401, then the address gets 429 with Retry-After, the right secret too',
    async (_name, send, address) => {
      for (let i = 0; i < 6; i += 1) expect((await send(address, wrongCli)).status).toBe(401);
      const refused = await send(address, wrongCli);
      expect({ status: refused.status, retryAfter: refused.headers.get('retry-after') }).toEqual({ status: 429, retryAfter: '120' });
      // Past the limit the secret is not compared: the right one cannot be told apart.
      expect((await send(address, rightCli)).status).toBe(429);
      // The address is locked out of password logins too; another address is not.
      expect((await postTokenFrom(address, demo.url, alice)).status).toBe(429);
      expect((await send('127.0.3.9', rightCli)).status).not.toBe(429);
    },
  );

  it('counts nothing for the right secret or for no credentials at all', async () => {
    for (let i = 0; i < 8; i += 1) {
      expect((await revokeFrom('127.0.3.10', { token: 'r', ...rightCli })).status).toBe(200);
      expect((await revokeFrom('127.0.3.10', { token: 'r' })).status).toBe(200);
    }
  });

  it('shares the address count with failed password logins', async () => {
    for (const username of ['v1', 'v2', 'v3']) {
      expect((await postTokenFrom('127.0.3.11', demo.url, { username, password: 'x' })).status).toBe(400);
    }
    for (let i = 0; i < 3; i += 1) expect((await revokeFrom('127.0.3.11', { token: 'r', ...wrongCli })).status).toBe(401);
    expect((await revokeFrom('127.0.3.11', { token: 'r', ...wrongCli })).status).toBe(429);
  });
});

describe('the login throttle on the tRPC mutation auth.token', () => {
  it('refuses with TOO_MANY_REQUESTS, the stable code ERR_SLOW_DOWN and Retry-After, sharing counts with REST', async () => {
    for (let i = 0; i < 3; i += 1) {
      expect((await trpcTokenFrom('127.0.2.1', demo.url, { username: 'mallory', password: 'guess' })).status).toBe(400);
    }
    const refused = await trpcTokenFrom('127.0.2.1', demo.url, { username: 'mallory', password: 'guess' });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.body.error.json).toMatchObject({
      message: 'Too many failed login attempts: try again in 60 seconds',
      data: { code: 'TOO_MANY_REQUESTS', httpStatus: 429, oauth2: { code: 'ERR_SLOW_DOWN', error: 'slow_down' } },
    });
    const rest = await postTokenFrom('127.0.2.2', demo.url, { username: 'mallory', password: 'guess' });
    expect({ status: rest.status, body: rest.body }).toEqual({ status: 429, body: slowDown(60) });
    // What a typed client sees (it connects from 127.0.0.1, an address no other test uses).
    const typed = await refusalOf(demoClient(demo.url).auth.token.mutate({ username: 'mallory', password: 'guess' }));
    expect(typed).toMatchObject({ status: 429, code: 'ERR_SLOW_DOWN', message: 'Too many failed login attempts: try again in 60 seconds' });
  });
});
