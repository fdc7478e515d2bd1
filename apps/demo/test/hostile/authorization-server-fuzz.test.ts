import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { CookieSession, pkcePair, swaggerAuthorizeUrl } from '../support/authorization-code.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { rawExchange } from './raw.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS * 6 });

// Whatever a client sends to the authorization server and its pages is answered with a 4xx (or a
// success), never a 5xx, and no request prints a stack trace. See docs/contract.md#body-limits.
const demo = demoForThisFile({
  loginThrottle: { username: { maxFailures: 1_000, windowSeconds: 60 }, address: { maxFailures: 100_000, windowSeconds: 60 }, maxEntries: 1_000 },
});

let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  errors = vi.spyOn(console, 'error');
});
afterEach(() => errors.mockRestore());

const send = (method: 'GET' | 'POST', path: string, { host = '127.0.0.1', body = '', cookie }: { host?: string; body?: string; cookie?: string } = {}) =>
  rawExchange(
    demo.url,
    [
      `${method} ${path} HTTP/1.1`,
      `Host: ${host}`,
      ...(cookie === undefined ? [] : [`Cookie: ${cookie}`]),
      ...(method === 'POST' ? ['Content-Type: application/x-www-form-urlencoded', `Content-Length: ${Buffer.byteLength(body)}`] : []),
      'Connection: close',
    ].join('\r\n'),
    0,
    body,
  );

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describe('client input the authorization server once answered with a 500', () => {
  it.each<[string, 'GET' | 'POST', string, string]>([
    ['a NUL byte in client_id', 'POST', '/oidc/token', form({ grant_type: 'authorization_code', client_id: 'swagger-ui\0', code: 'x', redirect_uri: 'x', code_verifier: 'x' })],
    ['a NUL byte in code', 'POST', '/oidc/token', form({ grant_type: 'authorization_code', client_id: 'swagger-ui', code: 'a\0b', redirect_uri: 'x', code_verifier: 'x' })],
    ['a NUL byte in refresh_token', 'POST', '/oidc/token', form({ grant_type: 'refresh_token', client_id: 'swagger-ui', refresh_token: 'a\0b' })],
    ['a NUL byte in the token to revoke', 'POST', '/oidc/token/revocation', form({ client_id: 'swagger-ui', token: 'a\0b' })],
    ['a NUL byte in client_id at /oidc/auth', 'GET', `/oidc/auth?${form({ client_id: 'a\0', response_type: 'code' })}`, ''],
    ['/oidc?x', 'GET', '/oidc?x', ''],
    ['a NUL byte in state at /oidc/session/end (jsonb cannot keep it)', 'GET', '/oidc/session/end?state=%00', ''],
  ])('%s is a 4xx (an unknown token to revoke: 200, RFC 7009 §2.2), with nothing printed', async (_name, method, path, body) => {
    const answer = await send(method, path, { body });
    const expected = path === '/oidc/token/revocation' ? [200] : [400, 401, 404];
    expect(expected, answer.text.slice(0, 300)).toContain(answer.status);
    expect(errors).not.toHaveBeenCalled();
  });

  it.each(['[', 'a b', '127.0.0.1:99999', 'x@evil', ''])('a Host of %j is answered from the configured issuer, not a 5xx', async (host) => {
    const answer = await send('GET', '/oidc/.well-known/openid-configuration', { host });
    expect(answer.status).toBeLessThan(500);
    if (answer.status === 200) expect(answer.text).toContain(`"issuer":"${demo.url}/oidc"`);
    expect(errors).not.toHaveBeenCalled();
  });
});

// Text a client may put anywhere: NUL and other control bytes, quotes, percent signs, non-ASCII.
const hostile = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('\0', '\u0001', '%', '"', "'", '<', '&', '=', '/', '?', '#', 'é', '\ud83d\ude00', 'a', ' '), maxLength: 30 }),
  fc.constantFrom('', '\0', 'swagger-ui', 'demo-cli', 'openid', 'me items', 'S256', 'code', 'refresh_token', 'authorization_code'),
);
const hostileHost = fc.oneof(
  fc.constantFrom('[', 'a b', '127.0.0.1:99999', ':', '[::1', 'x@evil', '', '127.0.0.1'),
  fc.stringMatching(/^[\x21-\x7e]{0,30}$/),
);

describe('a bounded fuzz of /oidc and /interaction', () => {
  it('answers every request below 500 and prints nothing', async () => {
    // A real interaction, so the pages' forms are reached with a live uid and its cookie.
    const session = new CookieSession();
    const pkce = pkcePair();
    const start = await session.follow(swaggerAuthorizeUrl(demo.url, pkce.challenge));
    const uid = /\/interaction\/([^/?]+)/.exec(start.url)?.[1];
    expect(uid).toBeDefined();
    const cookie = (await session.fetch(start.url)).headers.get('set-cookie') ?? '';
    const request = fc.oneof(
      fc.record({ method: fc.constant('POST' as const), path: fc.constantFrom('/oidc/token', '/oidc/token/revocation', '/oidc/token/introspection'), fields: fc.dictionary(fc.constantFrom('grant_type', 'client_id', 'code', 'refresh_token', 'token', 'token_type_hint', 'redirect_uri', 'code_verifier', 'scope', 'resource'), hostile) }),
      fc.record({ method: fc.constant('GET' as const), path: fc.constantFrom('/oidc/auth', '/oidc/.well-known/openid-configuration', '/oidc/jwks', '/oidc/session/end', '/oidc', '/oidc/me'), fields: fc.dictionary(fc.constantFrom('client_id', 'response_type', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'prompt', 'x'), hostile) }),
      fc.record({ method: fc.constant('POST' as const), path: fc.constantFrom(`/interaction/${uid}/login`, `/interaction/${uid}/consent`, `/interaction/${uid}/abort`, '/interaction/x%00/login', '/oidc/session/end/confirm'), fields: fc.dictionary(fc.constantFrom('username', 'password', 'xsrf', 'logout'), hostile) }),
      fc.record({ method: fc.constant('GET' as const), path: fc.constantFrom(`/interaction/${uid}`, '/interaction/%00', '/interaction/', '/interaction/x/y/z'), fields: fc.constant({}) }),
    );
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, hostileHost, fc.boolean(), async ({ method, path, fields }, host, withCookie) => {
        const query = method === 'GET' && Object.keys(fields).length > 0 ? `?${form(fields)}` : '';
        const answer = await send(method, `${path}${query}`, { host, body: method === 'POST' ? form(fields) : '', cookie: withCookie ? cookie : undefined });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        expect(answer.status, `${method} ${path}${query} Host: ${host}\n${answer.text.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
        expect(answer.status, `${method} ${path}${query} Host: ${host}\n${answer.text.slice(0, 300)}`).toBeLessThan(500);
      }),
      { numRuns: 200 },
    );
    expect(errors).not.toHaveBeenCalled();
    // The fuzz reached more than one kind of answer.
    expect(statuses.size).toBeGreaterThan(2);
  });
});
