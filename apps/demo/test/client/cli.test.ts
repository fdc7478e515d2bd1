import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { calculateJwkThumbprint, decodeJwt, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HELP, runCli, type CliIo } from '../../src/client/cli.js';
import type { ClientSession } from '../../src/client/session.js';
import { completeAuthorization } from '../support/authorization-code.js';
import { demoForThisFile, tempDataDir, TEST_TIMEOUT_MS } from '../support/demo-server.js';
import { bearer, postToken, request } from '../support/http.js';

vi.setConfig({ testTimeout: TEST_TIMEOUT_MS });

const demo = demoForThisFile();
let dir: string;
beforeAll(async () => {
  dir = await tempDataDir();
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs one command with its own session file; returns the exit code and what it printed. */
async function cli(args: string[], session: string, openBrowser: CliIo['openBrowser'] = () => {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: { DEMO_URL: demo.url, DEMO_SESSION: join(dir, session) },
    openBrowser,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const readSession = async (name: string): Promise<ClientSession> => JSON.parse(await readFile(join(dir, name), 'utf8'));

describe('the command-line client', () => {
  it('prints its help with --help, and without a command', async () => {
    for (const args of [['--help'], ['-h'], []]) {
      const result = await cli(args, 'help.json');
      expect(result).toEqual({ code: 0, out: HELP, err: '' });
    }
    expect(HELP).toMatch(/login --browser/);
    const unknown = await cli(['frobnicate'], 'help.json');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toBe('Unknown command "frobnicate". See --help.');
    const badOption = await cli(['login', '--colour'], 'help.json');
    expect(badOption.code).toBe(2);
    expect(badOption.err).toMatch(/^Unknown option '--colour'/);
    expect(await cli(['call'], 'help.json')).toEqual({ code: 2, out: '', err: 'call needs a procedure: users.me or users.items. See --help.' });
    expect(await cli(['call', 'users.addItem'], 'help.json')).toEqual({ code: 2, out: '', err: 'call cannot call "users.addItem": it calls users.me or users.items. See --help.' });
    const badUrl = await cli(['login', '--url', 'not-a-url'], 'help.json');
    expect(badUrl).toEqual({ code: 2, out: '', err: '--url "not-a-url" is not a valid URL: give one such as http://127.0.0.1:3000.' });
  });

  it('says plainly when no server answers', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const url = `http://127.0.0.1:${port}`;
    for (const args of [
      ['login', '--user', 'alice', '--password', 'wonderland', '--url', url],
      ['login', '--browser', '--no-open', '--url', url],
      ['walkthrough', '--url', url],
    ]) {
      const result = await cli(args, 'nobody.json');
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.err).toBe(`No server answers at ${url}: start it with \`npm start\` (or pass --url).`);
    }
  });

  it("sends a session's commands to the server it logged in to, and names that server when it does not answer", async () => {
    expect((await cli(['login', '--user', 'alice', '--password', 'wonderland'], 'moved.json')).code).toBe(0);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const elsewhere = `http://127.0.0.1:${port}`;
    // Another server named for a session's command: refused, not silently ignored.
    expect(await cli(['call', 'users.me', '--url', elsewhere], 'moved.json')).toEqual({
      code: 2,
      out: '',
      err: `This session is with ${demo.url}: log in with --url ${elsewhere} to use that server. See --help.`,
    });
    // The session's server gone: the message names it (a session file that says so).
    const session = await readSession('moved.json');
    await writeFile(join(dir, 'gone.json'), JSON.stringify({ ...session, url: elsewhere }));
    for (const args of [['call', 'users.me'], ['refresh'], ['logout']]) {
      const result = await cli(args, 'gone.json');
      expect(result, args.join(' ')).toEqual({ code: 1, out: '', err: `No server answers at ${elsewhere}: start it with \`npm start\`.` });
    }
  });

  it('logs in with the password flow, calls, refreshes and logs out (the refresh token is revoked)', async () => {
    const login = await cli(['login', '--user', 'alice', '--password', 'wonderland', '--scope', 'me items'], 'alice.json');
    expect(login).toEqual({ code: 0, out: 'Logged in as alice with the password flow, scope "me items" (DPoP-bound tokens).', err: '' });
    const first = await readSession('alice.json');
    expect(first).toMatchObject({ url: demo.url, flow: 'password', username: 'alice', scope: 'me items' });
    // Bound to the key the session keeps (RFC 9449): useless as a bearer token.
    expect(decodeJwt(first.accessToken).cnf).toEqual({ jkt: await calculateJwkThumbprint(first.dpop!.publicJwk as JWK) });
    expect((await request(`${demo.url}/api/users/me`, { headers: bearer(first.accessToken) })).status).toBe(401);

    const items = await cli(['call', 'users.items'], 'alice.json');
    expect(items.code).toBe(0);
    expect(JSON.parse(items.out).map((item: { title: string }) => item.title)).toEqual(['Pocket watch', 'Looking glass', 'Jar of orange marmalade']);

    const refreshed = await cli(['refresh'], 'alice.json');
    expect(refreshed.code).toBe(0);
    expect(refreshed.out).toMatch(/^Refreshed: new tokens for scope "me items", valid for \d+ s\.$/);
    const second = await readSession('alice.json');
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.dpop).toEqual(first.dpop);
    expect(decodeJwt(second.accessToken).cnf).toEqual(decodeJwt(first.accessToken).cnf);
    expect(JSON.parse((await cli(['call', 'users.me'], 'alice.json')).out).username).toBe('alice');
    expect((await cli(['status'], 'alice.json')).out).toMatch(/scope "me items", DPoP-bound tokens; the access token expires in \d+ s\.$/);

    const logout = await cli(['logout'], 'alice.json');
    expect(logout).toMatchObject({ code: 0, err: '' });
    expect(logout.out).toMatch(/^Logged out: the refresh token is revoked/);
    expect((await cli(['status'], 'alice.json')).out).toBe('Not logged in.');
    // Revoked on the server, not only forgotten here.
    const reuse = await postToken(demo.url, { grant_type: 'refresh_token', refresh_token: second.refreshToken!, client_id: 'demo-cli', client_secret: 'demo-cli-secret' });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
  });

  it('shows the 403 and its challenge when a scope is missing', async () => {
    // A token sent with DPoP (the default) is refused in the DPoP scheme (RFC 9449 §7.1), one sent as Bearer in Bearer's.
    for (const [session, flags, challenge] of [
      ['bob.json', [], 'DPoP error="insufficient_scope", scope="me items", algs="ES256 EdDSA Ed25519 PS256 RS256"'],
      ['bob-bearer.json', ['--bearer'], 'Bearer error="insufficient_scope", scope="me items"'],
    ] as const) {
      expect((await cli(['login', '--user', 'bob', '--password', 'builder', '--scope', 'me', ...flags], session)).code).toBe(0);
      const items = await cli(['call', 'users.items'], session);
      expect(items.code).toBe(1);
      expect(items.err).toBe(`users.items → 403 Not enough permissions (ERR_INSUFFICIENT_SCOPE)\nWWW-Authenticate: ${challenge}`);
    }
    const wrong = await cli(['login', '--user', 'bob', '--password', 'nope'], 'bob.json');
    expect(wrong).toMatchObject({ code: 1, err: 'The server refused: Incorrect username or password' });
  });

  // Any process on the machine can reach the loopback port: a request there without this login's
  // `state` (a wrong one, none, or an error) must not end the login the person is completing.
  it('ignores redirects to its loopback port that do not carry its state, and goes on waiting for its own', async () => {
    const forged: number[] = [];
    const login = await cli(['login', '--browser', '--scope', 'me'], 'browser-forged.json', async (url) => {
      const callback = new URL(new URL(url).searchParams.get('redirect_uri')!);
      for (const query of ['?code=forged&state=wrong', '?code=forged', '?error=access_denied&state=wrong', '']) {
        forged.push((await fetch(`${callback.href}${query}`)).status);
      }
      await completeAuthorization(url, { username: 'alice', password: 'wonderland' }, 'http://127.0.0.1/callback', true);
    });
    expect(forged).toEqual([400, 400, 400, 400]);
    expect(login.err).toBe('');
    expect(login.code).toBe(0);
    expect((await readSession('browser-forged.json')).username).toBe('alice');
  });

  it('logs in through the browser: authorization code, PKCE and a loopback redirect', async () => {
    let opened = '';
    const login = await cli(['login', '--browser', '--scope', 'me items'], 'browser.json', async (url) => {
      opened = url;
      // The person's browser: the login and consent pages, then back to the client's loopback port.
      await completeAuthorization(url, { username: 'alice', password: 'wonderland' }, 'http://127.0.0.1/callback', true);
    });
    expect(login.err).toBe('');
    expect(login.code).toBe(0);
    const authorize = new URL(opened);
    expect(authorize.origin + authorize.pathname).toBe(`${demo.url}/oidc/auth`);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(login.out).toBe(`Open this URL in a browser to log in:\n  ${opened}\nLogged in through the authorization server as alice, scope "me items" (DPoP-bound tokens).`);
    const session = await readSession('browser.json');
    // The session names the user, as a password login's does, so `status` says who is logged in.
    expect(session.username).toBe('alice');
    expect((await cli(['status'], 'browser.json')).out).toMatch(/ as alice through the authorization server \(authorization code \+ PKCE\), scope "me items", DPoP-bound tokens;/);
    // oidc-provider bound the token to the session's key (RFC 9449 §6.1).
    expect(decodeJwt(session.accessToken)).toMatchObject({
      iss: `${demo.url}/oidc`,
      sub: 'alice',
      client_id: 'demo-cli',
      cnf: { jkt: await calculateJwkThumbprint(session.dpop!.publicJwk as JWK) },
    });
    expect((await request(`${demo.url}/api/users/me`, { headers: bearer(session.accessToken) })).status).toBe(401);
    expect(JSON.parse((await cli(['call', 'users.items'], 'browser.json')).out)).toHaveLength(3);
    expect((await cli(['refresh'], 'browser.json')).code).toBe(0);
    // A refresh token bound to the key needs no rotation (oidc-provider rotates only unbound ones
    // of public clients); the new access token is bound to the same key.
    const refreshed = await readSession('browser.json');
    expect(refreshed.accessToken).not.toBe(session.accessToken);
    expect(decodeJwt(refreshed.accessToken).cnf).toEqual(decodeJwt(session.accessToken).cnf);
    expect(JSON.parse((await cli(['call', 'users.me'], 'browser.json')).out).username).toBe('alice');
    expect((await cli(['logout'], 'browser.json')).code).toBe(0);
  });
});
