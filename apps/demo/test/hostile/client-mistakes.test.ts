import superjson from 'superjson';
import { describe, expect, it, vi } from 'vitest';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { postTokenFrom, requestFrom } from '../support/from-address.js';
import { bearer, login, request } from '../support/http.js';
import { rawExchange } from './raw.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

// Client mistakes the demo once answered with a 5xx or read without bound; each must be a 4xx.
// See docs/contract.md#body-limits and docs/contract.md#the-password-request-form.
const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
const demo = demoForThisFile({
  loginThrottle: { username: { maxFailures: 3, windowSeconds: 60 }, address: { maxFailures: 1_000, windowSeconds: 60 }, maxEntries: 1_000 },
  clock: () => clock.now,
});

const trpcLogin = (from: string, body: string, contentType = 'application/json') =>
  requestFrom(from, `${demo.url}/trpc/auth.token`, { method: 'POST', headers: { 'content-type': contentType }, body });

describe('a NUL byte in the username (PostgreSQL text cannot hold one)', () => {
  it('is a wrong login on REST and tRPC, never a 500, and counts against the throttle', async () => {
    const rest = await postTokenFrom('127.0.0.21', demo.url, { username: 'alice\0', password: 'wonderland' });
    expect(rest.status).toBe(400);
    expect(rest.body).toEqual({ error: 'invalid_grant', error_description: 'Incorrect username or password' });
    const trpc = await trpcLogin('127.0.0.21', JSON.stringify({ json: { username: 'alice\0', password: 'wonderland' } }));
    expect(trpc.status).toBe(400);
    expect(trpc.body.error.json.data.oauth2).toEqual({ code: 'ERR_INVALID_GRANT', error: 'invalid_grant', error_description: 'Incorrect username or password', challenge: null, dpopNonce: null });
    const form = await trpcLogin('127.0.0.21', 'username=alice%00&password=wonderland', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(400);
    // Three failures of that username: the next attempt is refused before any check.
    expect((await postTokenFrom('127.0.0.22', demo.url, { username: 'alice\0', password: 'x' })).status).toBe(429);
    expect((await login(demo.url, 'alice', 'wonderland')).token_type).toBe('Bearer');
  });
});

describe('urlencoded field names superjson refuses, on /trpc', () => {
  it.each(['__proto__', 'constructor', 'prototype'])('%s=… is a 400, streamed or not', async (name) => {
    const body = `${name}=1&username=bob&password=builder`;
    const plain = await trpcLogin('127.0.0.23', body, 'application/x-www-form-urlencoded');
    expect(plain.status).toBe(400);
    expect(superjson.deserialize<{ data: { code: string } }>(plain.body.error).data.code).toBe('BAD_REQUEST');
    const streamed = await requestFrom('127.0.0.23', `${demo.url}/trpc/auth.token?batch=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'trpc-accept': 'application/jsonl' },
      body,
    });
    expect(streamed.status).toBe(400);
    expect(JSON.stringify(streamed.body)).not.toContain('INTERNAL_SERVER_ERROR');
  });
});

describe('a Host header with userinfo', () => {
  it.each(['/trpc/users.me', '/trpc/auth.token', '/trpc/users.me,users.items?batch=1', '/api/users/me', '/api/token'])('%s is a 400', async (path) => {
    const method = path.endsWith('token') ? 'POST' : 'GET';
    const answer = await rawExchange(demo.url, [`${method} ${path} HTTP/1.1`, 'Host: x@evil', 'Content-Type: application/json', 'Content-Length: 0', 'Connection: close'].join('\r\n'));
    expect(answer.status, answer.text).toBe(400);
  });
});

describe('bodies past the limit on every face (docs/contract.md#body-limits)', () => {
  const MiB = 1024 * 1024;
  it.each([
    ['POST /trpc/auth.token', 'application/json'],
    ['POST /trpc/auth.token', 'application/x-www-form-urlencoded'],
    ['POST /trpc/auth.token', 'multipart/form-data; boundary=b'],
    ['POST /api/conformance/form', 'application/json'],
    ['POST /api/token', 'application/json'],
  ])('%s (%s): a body said to be 256 MiB is a 413, answered before it is sent', async (line, contentType) => {
    const answer = await rawExchange(demo.url, [`${line} HTTP/1.1`, 'Host: 127.0.0.1', `Content-Type: ${contentType}`, `Content-Length: ${256 * MiB}`].join('\r\n'), 256 * MiB);
    expect(answer.status).toBe(413);
    expect(answer.written).toBeLessThan(64 * MiB);
  });

  it.each(['/trpc/auth.token', '/api/conformance/form'])('POST %s: a chunked JSON body is a 413 once past the limit, the rest unsent', async (path) => {
    const head = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Transfer-Encoding: chunked'].join('\r\n');
    // One chunk announced as 256 MiB: the server must answer once it has read past its limit.
    const answer = await rawExchange(demo.url, head, 256 * MiB, `${(256 * MiB).toString(16)}\r\n`);
    expect(answer.status).toBe(413);
    expect(answer.written).toBeLessThan(64 * MiB);
  });
});

describe('batches', () => {
  it('a GET of 1,000 protected calls is a 400, and none of them runs', async () => {
    const tokens = await login(demo.url, 'bob', 'builder');
    const paths = Array.from({ length: 1_000 }, () => 'users.me').join(',');
    const refused = await request(`${demo.url}/trpc/${paths}?batch=1`, { headers: bearer(tokens.access_token) });
    expect(refused.status).toBe(400);
    const allowed = await request(`${demo.url}/trpc/users.me,users.me?batch=1`, { headers: bearer(tokens.access_token) });
    expect(allowed.status).toBe(200);
  });
});

describe('headers', () => {
  it('an answer to a request with credentials is never cached, on every face', async () => {
    const tokens = await login(demo.url, 'alice', 'wonderland');
    for (const path of ['/api/users/me', '/trpc/users.me', '/trpc/users.me,users.items?batch=1', '/api/users/me/items']) {
      const answer = await request(`${demo.url}${path}`, { headers: bearer(tokens.access_token) });
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('cache-control'), path).toBe('no-store');
    }
    const refused = await request(`${demo.url}/api/users/me`, { headers: bearer('not-a-token') });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('cache-control')).toBe('no-store');
  });

  it.each(['/docs/', '/docs/index.html', '/docs/swagger-initializer.js', '/docs/swagger-ui.css', '/docs/oauth2-redirect.html'])(
    '%s forbids framing and sniffing, and sets a Content-Security-Policy',
    async (path) => {
      const answer = await fetch(`${demo.url}${path}`);
      await answer.arrayBuffer();
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      const csp = answer.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    },
  );
});

describe('a request target spelled with dot segments or as an absolute URL', () => {
  const get = (target: string) => rawExchange(demo.url, [`GET ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'].join('\r\n'));
  // Each face is reached at the path a URL resolves the target to, as the libraries' handlers read it.
  it.each([
    ['/x/../oidc/.well-known/openid-configuration', '"issuer"'],
    ['/api/%2e%2e/oidc/.well-known/openid-configuration', '"issuer"'],
    ['/api/../.well-known/oauth-protected-resource/mcp', '"authorization_servers"'],
    ['/trpc/../interaction/style.css', 'font-family'],
    ['http://127.0.0.1/x/../oidc/jwks', '"keys"'],
  ])('GET %s is served', async (target, expected) => {
    const answer = await get(target);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.text).toContain(expected);
  });

  it('GET // (no URL resolves from it) is a 400, not a 500', async () => {
    const answer = await get('//');
    expect(answer.status, answer.text).toBe(400);
    expect(answer.text).toContain('"code":"BAD_REQUEST"');
  });
});

describe('a method no Fetch request is built with', () => {
  it.each(['/trpc/users.me', '/trpc/auth.token', '/trpc/users.watchItems', '/api/users/me', '/api/token'])('TRACE %s is a 405, not a 500', async (path) => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const answer = await rawExchange(demo.url, [`TRACE ${path} HTTP/1.1`, `Host: ${new URL(demo.url).host}`, 'Connection: close'].join('\r\n'));
    expect(answer.status, answer.text).toBe(405);
    expect(answer.text).toContain('TRACE requests are not supported');
    expect(log).not.toHaveBeenCalled();
    log.mockRestore();
  });
});

describe('a NUL byte in an item title (PostgreSQL text cannot hold one)', () => {
  it('is a 400 naming the field, nothing is stored, and the database is never asked', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { access_token } = await login(demo.url, 'alice', 'wonderland', 'me items');
    const add = (title: string) =>
      request(`${demo.url}/trpc/users.addItem`, {
        method: 'POST',
        headers: { ...bearer(access_token), 'content-type': 'application/json' },
        body: JSON.stringify(superjson.serialize({ title })),
      });
    const before = (await request(`${demo.url}/api/users/me/items`, { headers: bearer(access_token) })).body as unknown[];
    for (const title of ['a\0b', '\0', 'tab\there']) {
      const answer = await add(title);
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain('A title has no control characters');
    }
    expect((await request(`${demo.url}/api/users/me/items`, { headers: bearer(access_token) })).body).toEqual(before);
    expect((await add('a title')).status).toBe(200);
    expect(log).not.toHaveBeenCalled();
    log.mockRestore();
  });
});
