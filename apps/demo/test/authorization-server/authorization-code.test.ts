import { connect } from 'node:net';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { authorizeOverHttp, CookieSession, pkcePair, redeemCode } from '../support/authorization-code.js';
import { demoForThisFile, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { dpopKey, dpopProof } from '../support/dpop.js';
import { bearer, request } from '../support/http.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();
const swaggerRedirect = () => `${demo.url}/docs/oauth2-redirect.html`;

async function codeFor(username: string, password: string, scope = 'me items') {
  const pkce = pkcePair();
  const back = await authorizeOverHttp(demo.url, {
    clientId: 'swagger-ui',
    redirectUri: swaggerRedirect(),
    username,
    password,
    scope,
    codeChallenge: pkce.challenge,
    state: 'xyz',
  });
  expect(back.searchParams.get('error')).toBeNull();
  expect(back.searchParams.get('state')).toBe('xyz');
  return { code: back.searchParams.get('code')!, verifier: pkce.verifier };
}

const refresh = async (refreshToken: string) => {
  const response = await fetch(`${demo.url}/oidc/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'refresh_token', client_id: 'swagger-ui', refresh_token: refreshToken }),
  });
  return { status: response.status, body: await response.json() };
};

describe('the authorization server at /oidc', () => {
  it('serves its metadata at the RFC 8414 §3.1 path of its issuer too, the same document as OpenID Connect discovery', async () => {
    const discovery = await fetch(`${demo.url}/oidc/.well-known/openid-configuration`);
    const rfc8414 = await fetch(`${demo.url}/.well-known/oauth-authorization-server/oidc`);
    expect(rfc8414.status).toBe(200);
    expect(rfc8414.headers.get('content-type')).toMatch(/^application\/json/);
    const metadata = await rfc8414.json();
    expect(metadata).toEqual(await discovery.json());
    // RFC 8414 §3.3: the issuer is the one the URL was made from.
    expect(metadata).toMatchObject({
      issuer: `${demo.url}/oidc`,
      authorization_endpoint: `${demo.url}/oidc/auth`,
      token_endpoint: `${demo.url}/oidc/token`,
      code_challenge_methods_supported: ['S256'],
    });
    expect(metadata.response_types_supported).toContain('code');
    // Only that path: the bare well-known one, or another issuer's, is none of the server's.
    expect((await fetch(`${demo.url}/.well-known/oauth-authorization-server`)).status).toBe(404);
    expect((await fetch(`${demo.url}/.well-known/oauth-authorization-server/other`)).status).toBe(404);
  });

  it('logs alice in, and her JWT access token for the API carries the scopes she may have', async () => {
    const { code, verifier } = await codeFor('alice', 'wonderland');
    const { status, body } = await redeemCode(demo.url, { clientId: 'swagger-ui', code, redirectUri: swaggerRedirect(), codeVerifier: verifier });
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'me items', expires_in: 900 });
    expect(typeof body.refresh_token).toBe('string');
    expect(decodeProtectedHeader(body.access_token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(decodeJwt(body.access_token)).toMatchObject({
      iss: `${demo.url}/oidc`,
      aud: 'urn:trpc-oauth2:demo:api',
      sub: 'alice',
      scope: 'me items',
      client_id: 'swagger-ui',
    });
    const items = await request(`${demo.url}/api/users/me/items`, { headers: bearer(body.access_token) });
    expect(items.status).toBe(200);
    expect(items.body.map((item: { title: string }) => item.title)).toEqual(['Pocket watch', 'Looking glass', 'Jar of orange marmalade']);
  });

  it('grants bob only `me`, so the API refuses him items with insufficient_scope', async () => {
    const { code, verifier } = await codeFor('bob', 'builder');
    const { body } = await redeemCode(demo.url, { clientId: 'swagger-ui', code, redirectUri: swaggerRedirect(), codeVerifier: verifier });
    expect(body.scope).toBe('me');
    expect((await request(`${demo.url}/api/users/me`, { headers: bearer(body.access_token) })).body.username).toBe('bob');
    const items = await request(`${demo.url}/api/users/me/items`, { headers: bearer(body.access_token) });
    expect(items.status).toBe(403);
    expect(items.headers.get('www-authenticate')).toBe('Bearer error="insufficient_scope", scope="me items"');
  });

  it('redeems a code once: the second redemption is invalid_grant and revokes what the first one issued', async () => {
    const { code, verifier } = await codeFor('alice', 'wonderland');
    const fields = { clientId: 'swagger-ui', code, redirectUri: swaggerRedirect(), codeVerifier: verifier };
    const first = await redeemCode(demo.url, fields);
    expect(first.status).toBe(200);
    const again = await redeemCode(demo.url, fields);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    // RFC 6749 §4.1.2: a code used twice revokes the tokens issued from it.
    const refreshed = await refresh(first.body.refresh_token);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('refuses a wrong code_verifier (RFC 7636 §4.6), and a missing one', async () => {
    const { code, verifier } = await codeFor('alice', 'wonderland');
    const base = { clientId: 'swagger-ui', code, redirectUri: swaggerRedirect() };
    for (const codeVerifier of [pkcePair().verifier, verifier.slice(0, -1), '']) {
      const wrong = await redeemCode(demo.url, { ...base, codeVerifier });
      expect(wrong.status, codeVerifier).toBe(400);
      expect(['invalid_grant', 'invalid_request']).toContain(wrong.body.error);
    }
    // The guesses did not redeem it: the client holding the verifier still can, once.
    const right = await redeemCode(demo.url, { ...base, codeVerifier: verifier });
    expect(right.status).toBe(200);
    expect(decodeJwt(right.body.access_token).sub).toBe('alice');
  });

  it('refreshes (the refresh token rotates) and revokes (RFC 7009) the refresh token', async () => {
    const { code, verifier } = await codeFor('alice', 'wonderland');
    const { body } = await redeemCode(demo.url, { clientId: 'swagger-ui', code, redirectUri: swaggerRedirect(), codeVerifier: verifier });
    const next = await refresh(body.refresh_token);
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(body.refresh_token);
    expect((await request(`${demo.url}/api/users/me`, { headers: bearer(next.body.access_token) })).status).toBe(200);
    const revoked = await fetch(`${demo.url}/oidc/token/revocation`, {
      method: 'POST',
      body: new URLSearchParams({ client_id: 'swagger-ui', token: next.body.refresh_token, token_type_hint: 'refresh_token' }),
    });
    expect(revoked.status).toBe(200);
    expect((await refresh(next.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  // RFC 9449 §11.1: a proof is accepted once. Redemptions carrying one proof that arrive together
  // may each look for it before any has recorded it; only one of them may record it and be served
  // (the same over two servers sharing a database: test/store/two-instances.test.ts).
  it('accepts a DPoP proof once, also from redemptions that send it at the same time', async () => {
    const redemption = async (proof: string) => {
      const { code, verifier } = await codeFor('alice', 'wonderland');
      return () =>
        request(`${demo.url}/oidc/token`, {
          method: 'POST',
          headers: { dpop: proof },
          body: new URLSearchParams({ grant_type: 'authorization_code', client_id: 'swagger-ui', code, redirect_uri: swaggerRedirect(), code_verifier: verifier }),
        });
    };
    const newProof = async () => dpopProof(await dpopKey(), 'POST', `${demo.url}/oidc/token`);
    const proof = await newProof();
    const first = await (await redemption(proof))();
    expect(first.status).toBe(200);
    expect(first.body.token_type).toBe('DPoP');
    const again = await (await redemption(proof))();
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    for (let round = 0; round < 3; round++) {
      const shared = await newProof();
      // The codes one after the other (a login throttle counts logins under way), then the redemptions at once.
      const sends = [];
      for (let i = 0; i < 6; i++) sends.push(await redemption(shared));
      const answers = await Promise.all(sends.map((send) => send()));
      expect(answers.map((answer) => answer.status).sort(), `round ${round}`).toEqual([200, 400, 400, 400, 400, 400]);
      for (const answer of answers.filter((x) => x.status === 400)) expect(answer.body.error).toBe('invalid_grant');
    }
  }, TEST_TIMEOUT_MS * 3);
});

describe('a body the authorization server stops reading', () => {
  /**
   * Sends a chunked POST of about 200 KiB (past what oidc-provider reads) and, on the same
   * connection, a GET after it; answers what came back within 3 s, and whether the connection closed.
   */
  const pipelined = (path: string) =>
    new Promise<{ statuses: string[]; closed: boolean }>((resolve) => {
      const { hostname, port } = new URL(demo.url);
      const socket = connect(Number(port), hostname);
      let received = '';
      const done = (closed: boolean) => {
        clearTimeout(timer);
        socket.destroy();
        resolve({ statuses: received.match(/HTTP\/1\.1 \d+/g) ?? [], closed });
      };
      const timer = setTimeout(() => done(false), 3_000);
      socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
      socket.on('close', () => done(true));
      const head = `grant_type=refresh_token&client_id=swagger-ui&refresh_token=`;
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n`);
      socket.write(`${Buffer.byteLength(head).toString(16)}\r\n${head}\r\n`);
      for (let chunk = 0; chunk < 50; chunk++) socket.write(`1000\r\n${'x'.repeat(4096)}\r\n`);
      socket.write('0\r\n\r\n');
      socket.write(`GET /oidc/.well-known/openid-configuration HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`);
    });

  it.each(['/oidc/token', '/oidc/token/revocation', '/oidc/reg'])(
    'a chunked body of 200 KiB at %s is refused with a 4xx, and the connection closed rather than left waiting',
    async (path) => {
      const { statuses, closed } = await pipelined(path);
      expect(statuses[0]).toMatch(/^HTTP\/1\.1 4\d\d$/);
      // The rest of the body is never read: the request after it is never served on that
      // connection, which must then be closed, not left to hang.
      expect(closed).toBe(true);
    },
  );
});

describe('the login and consent pages', () => {
  const start = async () => {
    const session = new CookieSession();
    const pkce = pkcePair();
    const authorize = `${demo.url}/oidc/auth?${new URLSearchParams({
      response_type: 'code',
      client_id: 'swagger-ui',
      redirect_uri: swaggerRedirect(),
      scope: 'me items',
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      state: 's',
    })}`;
    const { url, response } = await session.follow(authorize);
    return { session, url, html: await response.text(), response };
  };
  const post = (session: CookieSession, url: string, fields: Record<string, string>, type = 'application/x-www-form-urlencoded') =>
    session.fetch(url, { method: 'POST', headers: { 'content-type': type }, body: new URLSearchParams(fields).toString() });

  it('are served without script under a strict CSP, and escape what they show', async () => {
    const { url, html, response } = await start();
    expect(url).toMatch(new RegExp(`^${demo.url}/interaction/[A-Za-z0-9_-]+$`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'self';/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('Swagger UI of the trpc-oauth2 demo');
    const css = await fetch(`${demo.url}/interaction/style.css`);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  // A logout request stores a session whether anyone is logged in or not (the logout form's
  // secret is kept in it): one nobody logged in to lasts as long as a login page (the
  // interaction, 10 minutes), a logged-in one a day, so requests nobody follows up do not leave a
  // day's worth of sessions behind them.
  it('keep a session nobody logged in to as long as a login page, and a logged-in one a day', async () => {
    const expiresIn = (response: Response) => {
      const cookie = response.headers.getSetCookie().find((line) => line.startsWith('_session='));
      expect(cookie, 'the session cookie').toBeDefined();
      return (Date.parse(/;\s*expires=([^;]+)/i.exec(cookie!)![1]!) - Date.now()) / 1000;
    };
    for (const query of ['', '?client_id=swagger-ui']) {
      const anonymous = await fetch(`${demo.url}/oidc/session/end${query}`);
      expect(anonymous.status).toBe(200);
      expect(expiresIn(anonymous), query).toBeGreaterThan(10 * 60 - 5);
      expect(expiresIn(anonymous), query).toBeLessThanOrEqual(10 * 60);
    }
    const { session, url } = await start();
    const loggedIn = await post(session, `${url}/login`, { username: 'alice', password: 'wonderland' });
    expect(loggedIn.status).toBe(303);
    const resumed = await session.fetch(new URL(loggedIn.headers.get('location')!, demo.url).href);
    expect(expiresIn(resumed)).toBeGreaterThan(24 * 60 * 60 - 5);
    expect(expiresIn(resumed)).toBeLessThanOrEqual(24 * 60 * 60);
    // Asking to log out keeps it a logged-in one.
    expect(expiresIn(await session.fetch(`${demo.url}/oidc/session/end?client_id=swagger-ui`))).toBeGreaterThan(24 * 60 * 60 - 5);
  });

  it('have their /favicon.ico answered (204), not a 404', async () => {
    const favicon = await fetch(`${demo.url}/favicon.ico`);
    expect(favicon.status).toBe(204);
  });

  it('include the logout pages: the demo\'s page policy, no third-party host, no script', async () => {
    const session = new CookieSession();
    const checkPage = async (response: Response, script = false) => {
      expect(response.status).toBe(200);
      const csp = response.headers.get('content-security-policy');
      expect(csp).toMatch(/^default-src 'none'; style-src 'self';/);
      // No script, or only the one inline script whose hash the policy names.
      if (script) expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'$/);
      else expect(csp).not.toMatch(/script-src (?!'none'$)/); // default-src 'none' covers scripts
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      const html = await response.text();
      expect(html).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
      expect(html).not.toMatch(/@import|fonts\.googleapis/i);
      expect(html.match(/<script/gi) ?? []).toHaveLength(script ? 1 : 0);
      return html;
    };
    // Without a session, oidc-provider's own page posts the logout on by itself.
    await checkPage(await fetch(`${demo.url}/oidc/session/end?client_id=swagger-ui`), true);
    // With one (alice logged in), the demo's page asks first.
    await session.follow(
      `${demo.url}/oidc/auth?${new URLSearchParams({ response_type: 'code', client_id: 'swagger-ui', redirect_uri: swaggerRedirect(), scope: 'me', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })}`,
    ).then(({ url }) =>
      session.follow(`${url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'alice', password: 'wonderland' }).toString(),
      }),
    );
    const html = await checkPage(await session.fetch(`${demo.url}/oidc/session/end?client_id=swagger-ui`));
    expect(html).toContain('Sign out of the trpc-oauth2 demo?');
    const action = /<form[^>]*action="([^"]+)"/.exec(html)![1]!;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1]!;
    const { response: done } = await session.follow(new URL(action, demo.url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    expect(await checkPage(done)).toContain('Signed out');
  });

  it('answer a wrong password with the login page again (401), and count it against the username', async () => {
    const { session, url } = await start();
    const wrong = await post(session, `${url}/login`, { username: 'alice<b>', password: 'nope' });
    expect(wrong.status).toBe(401);
    const html = await wrong.text();
    expect(html).toContain('Incorrect username or password.');
    expect(html).toContain('value="alice&lt;b&gt;"');
  });

  // oidc-provider ends the session of the account logged out (revoking the grants it holds) and
  // resumes the interaction, which carries the id of that account's grant for the client: the
  // interaction must outlive the revocation of that grant's tokens.
  it('let a person logged in as alice log in as bob (prompt=login): the code is bob\'s', async () => {
    const session = new CookieSession();
    const authorize = async (username: string, password: string, extra: Record<string, string>) => {
      const pkce = pkcePair();
      const done = (next: string) => next.startsWith(swaggerRedirect());
      let step = await session.follow(
        `${demo.url}/oidc/auth?${new URLSearchParams({ response_type: 'code', client_id: 'swagger-ui', redirect_uri: swaggerRedirect(), scope: 'me items', code_challenge: pkce.challenge, code_challenge_method: 'S256', ...extra })}`,
        {},
        done,
      );
      const pages: string[] = [];
      for (let hops = 0; hops < 5 && !done(step.url); hops++) {
        const html = await step.response.text();
        expect(step.response.status, html).toBe(200);
        const page = /<form method="post" action="([^"]+\/(login|consent))"/.exec(html);
        // The page oidc-provider posts on by itself (a browser runs its script): ending the session of the account logged out.
        const logout = /<form method="post" action="([^"]+\/session\/end\/confirm)">/.exec(html);
        const xsrf = /name="xsrf" value="([^"]+)"/.exec(html);
        if (page !== null) pages.push(page[2]!);
        else if (logout !== null) pages.push('logout');
        const action = page?.[1] ?? logout?.[1];
        expect(action, html).toBeDefined();
        const fields: Record<string, string> = page === null ? { xsrf: xsrf![1]!, logout: 'yes' } : page[2] === 'login' ? { username, password } : {};
        step = await session.follow(new URL(action!, demo.url).href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() }, done);
      }
      expect(done(step.url), step.url).toBe(true);
      const code = new URL(step.url).searchParams.get('code')!;
      const { status, body } = await redeemCode(demo.url, { clientId: 'swagger-ui', code, redirectUri: swaggerRedirect(), codeVerifier: pkce.verifier });
      expect(status).toBe(200);
      return { pages, claims: decodeJwt(body.access_token) };
    };
    expect(await authorize('alice', 'wonderland', {})).toMatchObject({ pages: ['login', 'consent'], claims: { sub: 'alice', scope: 'me items' } });
    expect(await authorize('bob', 'builder', { prompt: 'login' })).toMatchObject({ pages: ['login', 'logout', 'consent'], claims: { sub: 'bob', scope: 'me' } });
    // The browser's session is bob's now.
    expect(await authorize('alice', 'wonderland', {})).toMatchObject({ pages: [], claims: { sub: 'bob', scope: 'me' } });
  });

  it('send the client an access_denied error when the person cancels', async () => {
    const { session, url } = await start();
    const { url: back } = await session.follow(`${url}/abort`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' }, (next) =>
      next.startsWith(swaggerRedirect()),
    );
    const params = new URL(back).searchParams;
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('state')).toBe('s');
    expect(params.get('code')).toBeNull();
  });

  it('refuse malformed and oversized forms and unknown interactions with a 4xx, never a 5xx', async () => {
    const { session, url } = await start();
    expect((await post(session, `${url}/login`, { username: 'alice' }, 'application/json')).status).toBe(415);
    expect((await post(session, `${url}/login`, { username: 'a'.repeat(10_000), password: 'x' })).status).toBe(413);
    // The same form sent in chunks (no length): refused once past the limit, and the answer arrives.
    const chunked = new TextEncoder().encode(`username=${'a'.repeat(10_000)}&password=x`);
    const streamed = await session.fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new ReadableStream({ start: (controller) => (controller.enqueue(chunked), controller.close()) }),
      duplex: 'half',
      signal: AbortSignal.timeout(5_000),
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await post(session, `${url}/consent`, {})).status).toBe(400); // consent before login
    expect((await session.fetch(`${url}/login`)).status).toBe(405);
    expect((await fetch(`${url}`)).status).toBe(400); // no interaction cookie
    expect((await post(new CookieSession(), `${demo.url}/interaction/unknown/login`, { username: 'a', password: 'b' })).status).toBeLessThan(500);
    expect((await fetch(`${demo.url}/interaction/x/y/z`)).status).toBe(404);
  });
});
