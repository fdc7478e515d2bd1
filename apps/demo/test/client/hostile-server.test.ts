/**
 * The command-line client against a hostile server (`--url` names it): a plain node:http server
 * on 127.0.0.1 answering as an attacker would. Its discovery document must not make the client
 * open anything but the authorization server's own web page (the class of CVE-2025-6514), nor
 * send anything to another origin; plain http is for loopback hosts only; and nothing it says
 * reaches the terminal with its control characters (CWE-150).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli, type CliIo } from '../../src/client/cli.js';
import { isLoopbackHost, serverUrlProblem } from '../../src/client/server-url.js';
import type { ClientSession } from '../../src/client/session.js';
import { printable, printableJson } from '../../src/client/terminal-text.js';

// No demo server here (nothing of it is needed): the hostile server is a few lines of node:http.
vi.setConfig({ testTimeout: 20_000 });

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A server on 127.0.0.1 answering each path as told, and remembering what it was asked. */
async function fakeServer() {
  const routes = new Map<string, Handler>();
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(`${req.method} ${path}`);
    req.resume();
    const route = routes.get(path);
    if (route === undefined) res.writeHead(404).end();
    else route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    json: (path: string, status: number, body: unknown, headers: Record<string, string> = {}) =>
      routes.set(path, (_req, res) => res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers }).end(JSON.stringify(body))),
    route: (path: string, handler: Handler) => routes.set(path, handler),
    reset: () => {
      routes.clear();
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let dir: string;
let hostile: Awaited<ReturnType<typeof fakeServer>>;
/** Another origin (a port of its own): nothing may be sent there. */
let elsewhere: Awaited<ReturnType<typeof fakeServer>>;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trpc-oauth2-demo-client-'));
  hostile = await fakeServer();
  elsewhere = await fakeServer();
});
afterEach(() => {
  hostile.reset();
  elsewhere.reset();
});
afterAll(async () => {
  await Promise.all([hostile.close(), elsewhere.close()]);
  await rm(dir, { recursive: true, force: true });
});

let sessions = 0;
/** Runs one command with a session file of its own (unless given one); the exit code and what it printed. */
async function cli(args: string[], options: { openBrowser?: CliIo['openBrowser']; session?: string; env?: Record<string, string> } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const session = options.session ?? join(dir, `session-${(sessions += 1)}.json`);
  const code = await runCli(args, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: { DEMO_SESSION: session, ...options.env },
    openBrowser: options.openBrowser ?? (() => {}),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** Any control character, C0 (LF included: every expected string here is one line), DEL or C1. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** An OSC retitling the terminal, a screen clear, a cursor home and a fake line of the client's output. */
const EVIL = '\u001b]0;pwned\u0007\u001b[2J\u001b[HLogged in as alice with the password flow, scope "me items".\r';
const EVIL_ESCAPED = '\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[HLogged in as alice with the password flow, scope "me items".\\r';

/** A browser that goes straight back to the client's loopback port, as a person closing the tab would. */
/** Writes a logged-in password session for the server at `url` to `session`, granted `scope`. */
const storeSession = async (session: string, url: string, scope = 'me items') => {
  const stored: ClientSession = {
    url,
    flow: 'password',
    username: 'alice',
    accessToken: 'at',
    refreshToken: 'rt',
    scope,
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
  };
  await writeFile(session, JSON.stringify(stored));
};

const openedBy = (opened: string[], back: (sent: URL) => Record<string, string> = () => ({ error: 'access_denied' })) => async (authorizeUrl: string) => {
  opened.push(authorizeUrl);
  const sent = new URL(authorizeUrl);
  const callback = new URL(sent.searchParams.get('redirect_uri')!);
  callback.search = new URLSearchParams({ ...back(sent), state: sent.searchParams.get('state')! }).toString();
  await (await fetch(callback)).arrayBuffer();
};

const discovery = (overrides: Record<string, unknown>) => ({
  issuer: `${hostile.url}/oidc`,
  authorization_endpoint: `${hostile.url}/oidc/auth`,
  token_endpoint: `${hostile.url}/oidc/token`,
  response_types_supported: ['code'],
  ...overrides,
});

describe('login --browser against a hostile discovery document', () => {
  const refusedEndpoints = () => [
    'file:///etc/passwd',
    'javascript:alert(document.domain)//',
    'smb://attacker.example/share/payload.exe',
    'ms-settings:privacy',
    'vscode://attacker.example/payload',
    'https://attacker.example/oidc/auth',
    // http on loopback, but not the issuer's origin (another local service).
    `${elsewhere.url}/oidc/auth`,
    // The issuer's origin, with credentials.
    `http://user:pw@${hostile.url.slice('http://'.length)}/oidc/auth`,
    ['not', 'a', 'string'],
  ];

  it('opens nothing, prints nothing to open and sends nothing when authorization_endpoint is not on the issuer origin', async () => {
    for (const endpoint of refusedEndpoints()) {
      for (const noOpen of [false, true]) {
        hostile.json('/oidc/.well-known/openid-configuration', 200, discovery({ authorization_endpoint: endpoint }));
        const opened: string[] = [];
        const result = await cli(['login', '--browser', '--bearer', '--url', hostile.url, ...(noOpen ? ['--no-open'] : [])], { openBrowser: openedBy(opened) });
        const what = `${JSON.stringify(endpoint)}${noOpen ? ' --no-open' : ''}`;
        expect(result.code, what).toBe(1);
        expect(opened, what).toEqual([]);
        expect(result.out, what).toBe('');
        expect(result.err, what).toMatch(new RegExp(`^The authorization server at ${hostile.url}/oidc names authorization_endpoint .*, not a URL of its own origin ${hostile.url}: refused \\(nothing was opened or sent\\)\\.$`));
        expect(result.err, what).not.toMatch(CONTROL);
        expect(hostile.requests, what).toEqual(['GET /oidc/.well-known/openid-configuration']);
        expect(elsewhere.requests, what).toEqual([]);
        hostile.reset();
      }
    }
  });

  it('refuses a token or revocation endpoint on another origin before sending it anything', async () => {
    for (const overrides of [
      { token_endpoint: `${elsewhere.url}/oidc/token` },
      { token_endpoint: 'http://demo.example/oidc/token' },
      { revocation_endpoint: `${elsewhere.url}/oidc/token/revocation` },
    ]) {
      hostile.json('/oidc/.well-known/openid-configuration', 200, discovery(overrides));
      const opened: string[] = [];
      const result = await cli(['login', '--browser', '--bearer', '--url', hostile.url], { openBrowser: openedBy(opened) });
      const name = Object.keys(overrides)[0];
      expect(result.code, name).toBe(1);
      expect(result.err, name).toMatch(new RegExp(`^The authorization server at ${hostile.url}/oidc names ${name} `));
      expect(opened, name).toEqual([]);
      expect(elsewhere.requests, name).toEqual([]);
      hostile.reset();
    }
  });

  it('still opens the http://127.0.0.1 authorization endpoint of a loopback server, and logs in (control)', async () => {
    hostile.json('/oidc/.well-known/openid-configuration', 200, discovery({}));
    hostile.json('/oidc/token', 200, { access_token: 'at', token_type: 'bearer', expires_in: 600, refresh_token: 'rt', scope: 'me items' });
    hostile.json('/trpc/users.me', 200, { result: { data: { json: { username: 'alice' } } } });
    const opened: string[] = [];
    const result = await cli(['login', '--browser', '--bearer', '--url', hostile.url], { openBrowser: openedBy(opened, () => ({ code: 'the-code' })) });
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
    expect(opened).toHaveLength(1);
    const authorize = new URL(opened[0]!);
    expect(authorize.origin + authorize.pathname).toBe(`${hostile.url}/oidc/auth`);
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(result.out).toBe(`Open this URL in a browser to log in:\n  ${opened[0]}\nLogged in through the authorization server as alice, scope "me items".`);
    expect(hostile.requests).toEqual(['GET /oidc/.well-known/openid-configuration', 'POST /oidc/token', 'GET /trpc/users.me']);
  });
});

describe('text from a hostile server printed to the terminal', () => {
  it('escapes the user name and scope a browser login prints', async () => {
    hostile.json('/oidc/.well-known/openid-configuration', 200, discovery({}));
    hostile.json('/oidc/token', 200, { access_token: 'at', token_type: 'bearer', expires_in: 600, refresh_token: 'rt', scope: 'me\u009b2J items' });
    hostile.json('/trpc/users.me', 200, { result: { data: { json: { username: EVIL } } } });
    const opened: string[] = [];
    const result = await cli(['login', '--browser', '--bearer', '--url', hostile.url], { openBrowser: openedBy(opened, () => ({ code: 'the-code' })) });
    expect(result.code).toBe(0);
    expect(result.out.split('\n')).toEqual([
      'Open this URL in a browser to log in:',
      `  ${opened[0]}`,
      `Logged in through the authorization server as ${EVIL_ESCAPED}, scope "me\\u009b2J items".`,
    ]);
  });

  it("escapes the control characters of a token endpoint's error_description (password flow)", async () => {
    hostile.json('/api/token', 400, { error: 'invalid_grant', error_description: EVIL });
    const result = await cli(['login', '--bearer', '--user', 'alice', '--password', 'x', '--url', hostile.url]);
    expect(result).toEqual({ code: 1, out: '', err: `The server refused: ${EVIL_ESCAPED}` });
  });

  it("escapes the authorization server's token endpoint error_description (browser flow)", async () => {
    hostile.json('/oidc/.well-known/openid-configuration', 200, discovery({}));
    hostile.json('/oidc/token', 400, { error: 'invalid_grant', error_description: EVIL });
    const opened: string[] = [];
    const result = await cli(['login', '--browser', '--bearer', '--url', hostile.url], { openBrowser: openedBy(opened, () => ({ code: 'the-code' })) });
    expect(opened).toHaveLength(1);
    expect(result.code).toBe(1);
    expect(result.err).toBe(`The server refused: ${EVIL_ESCAPED}`);
  });

  it('escapes what `call` prints: the answer, and a refusal with its challenge', async () => {
    const session = join(dir, 'call.json');
    await storeSession(session, hostile.url);
    const titles = [EVIL, 'csi \u009b2J', 'bidi \u202eexe.txt', 'del \u007f'];
    hostile.json('/trpc/users.items', 200, { result: { data: { json: titles.map((title, id) => ({ id, title })) } } });
    const items = await cli(['call', 'users.items'], { session });
    expect(items.code).toBe(0);
    expect(items.out).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    // Still JSON, and still the server's answer.
    expect(JSON.parse(items.out).map((item: { title: string }) => item.title)).toEqual(titles);

    hostile.json(
      '/trpc/users.me',
      401,
      { error: { json: { message: EVIL, code: -32001, data: { code: 'UNAUTHORIZED', httpStatus: 401, oauth2: { code: 'ERR\u001b[2J' } } } } },
      // Node sends no C0 control in a header, but a C1 one (0x9b, CSI on some terminals) it does.
      { 'www-authenticate': 'Bearer error="invalid_token"\u009b2J' },
    );
    const me = await cli(['call', 'users.me'], { session });
    expect(me).toEqual({
      code: 1,
      out: '',
      err: `users.me → 401 ${EVIL_ESCAPED} (ERR\\u001b[2J)\nWWW-Authenticate: Bearer error="invalid_token"\\u009b2J`,
    });
  });

  it('escapes the titles `watch` prints', async () => {
    const session = join(dir, 'watch.json');
    await storeSession(session, hostile.url);
    hostile.route('/trpc/users.watchItems', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
      res.write('event: connected\ndata: {}\n\n');
      res.write(`id: 1\ndata: ${JSON.stringify({ json: { id: 1, title: EVIL } })}\n\n`);
      res.write(`id: 2\ndata: ${JSON.stringify({ json: { id: 2, title: 'csi \u009b2J' } })}\n\n`);
    });
    const result = await cli(['watch', '--transport', 'sse', '--count', '2'], { session });
    expect(result).toEqual({ code: 0, out: `Watching your items over Server-Sent Events:\nitem 1: ${EVIL_ESCAPED}\nitem 2: csi \\u009b2J`, err: '' });
  });

  it("escapes what the walk-through prints of the server's answers", async () => {
    hostile.json('/trpc/auth.token', 200, { result: { data: { json: { access_token: 'at', token_type: 'Bearer', expires_in: 900, refresh_token: 'rt', scope: EVIL } } } });
    hostile.json('/trpc/users.me', 200, { result: { data: { json: { username: 'alice', fullName: EVIL, email: 'a\u009b@x', scopes: ['me', EVIL] } } } });
    hostile.json('/trpc/users.items', 200, { result: { data: { json: [{ id: 1, title: EVIL }] } } });
    const result = await cli(['walkthrough', '--url', hostile.url]);
    // It stops at step 4 (bob's users.items is not refused), after printing what came before.
    expect(result.code).toBe(1);
    expect(result.err).toBe('The call was expected to fail, and it succeeded');
    const lines = result.out.split('\n');
    expect(lines).toContain(`   Bearer token for scope "${EVIL_ESCAPED}", expires in 900 s`);
    expect(lines).toContain(`2. users.me → ${EVIL_ESCAPED} <a\\u009b@x>, may be granted: me, ${EVIL_ESCAPED}`);
    expect(lines).toContain(`3. users.items → ${EVIL_ESCAPED}`);
    for (const line of lines) expect(line).not.toMatch(CONTROL);
  });

  it('escapes the scope `status` and `refresh` print', async () => {
    const session = join(dir, 'status.json');
    await storeSession(session, hostile.url, EVIL);
    const status = await cli(['status'], { session });
    expect(status.out).toContain(`scope "${EVIL_ESCAPED}", bearer tokens`);
    expect(status.out).not.toMatch(CONTROL);
    hostile.json('/api/token', 200, { access_token: 'at2', token_type: 'bearer', expires_in: 600, refresh_token: 'rt2', scope: EVIL });
    const refresh = await cli(['refresh'], { session });
    expect(refresh).toEqual({ code: 0, out: `Refreshed: new tokens for scope "${EVIL_ESCAPED}", valid for 600 s.`, err: '' });
  });
});

describe('plain http is for loopback hosts only', () => {
  it('refuses an http --url (or DEMO_URL) to another host, or one with credentials, as a usage error, contacting nothing', async () => {
    for (const url of ['http://demo.example', 'http://192.168.1.10:3000', 'http://[::2]:3000', 'http://128.0.0.1:3000']) {
      for (const args of [['login', '--user', 'alice', '--password', 'x'], ['login', '--browser'], ['walkthrough']]) {
        const opened: string[] = [];
        const result = await cli([...args, '--url', url], { openBrowser: openedBy(opened) });
        expect(result, `${url} ${args[1]}`).toEqual({
          code: 2,
          out: '',
          err: `--url ${JSON.stringify(url)} is plain http to a host that is not this machine, which would send passwords and tokens in the clear: use https (http only on 127.0.0.1, [::1] or localhost).`,
        });
        expect(opened).toEqual([]);
      }
      const fromEnv = await cli(['login', '--browser'], { env: { DEMO_URL: url } });
      expect(fromEnv.code).toBe(2);
      expect(fromEnv.err).toMatch(/^DEMO_URL ".*" is plain http to a host that is not this machine/);
    }
    const withCredentials = await cli(['login', '--browser', '--url', `http://user:secret@${hostile.url.slice('http://'.length)}`]);
    expect(withCredentials).toEqual({ code: 2, out: '', err: '--url must not carry credentials (user:password@): give one such as http://127.0.0.1:3000.' });
    expect(hostile.requests).toEqual([]);
  });

  it('accepts https anywhere and http on loopback', async () => {
    // https to a loopback port nobody listens on: accepted, then no server answers.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const result = await cli(['login', '--user', 'alice', '--password', 'x', '--url', `https://127.0.0.1:${port}`]);
    expect(result).toEqual({ code: 1, out: '', err: `No server answers at https://127.0.0.1:${port}: start it with \`npm start\` (or pass --url).` });
    for (const url of ['https://demo.example', 'http://127.0.0.1:3000', 'http://127.1.2.3', 'http://localhost:3000', 'http://[::1]:3000']) {
      expect(serverUrlProblem(url), url).toBeNull();
    }
  });

  it("refuses a session whose server is plain http to another host (a session file edited by hand), sending nothing", async () => {
    const session = join(dir, 'plain-http.json');
    await storeSession(session, 'http://demo.example');
    for (const args of [['call', 'users.me'], ['refresh'], ['logout'], ['watch', '--count', '1']]) {
      expect(await cli(args, { session }), args[0]).toEqual({
        code: 1,
        out: '',
        err: 'This session is with "http://demo.example", which is not https (nor http on a loopback host): log in again.',
      });
    }
  });

  it('knows the loopback hosts', () => {
    for (const host of ['127.0.0.1', '127.255.255.254', '127.0.0.53', '[::1]', 'localhost']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['128.0.0.1', '10.0.0.1', '0.0.0.0', '[::]', '[::ffff:7f00:1]', 'localhost.attacker.example', '127.0.0.1.nip.io', 'example.com']) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
    // URL normalizes other spellings of a loopback address first.
    for (const spelling of ['http://127.1', 'http://0x7f.1', 'http://2130706433', 'http://LOCALHOST']) expect(isLoopbackHost(new URL(spelling).hostname), spelling).toBe(true);
  });
});

describe('printable', () => {
  it('escapes C0, DEL, C1 and bidirectional controls, and leaves printable text alone', () => {
    expect(printable(EVIL)).toBe(EVIL_ESCAPED);
    expect(printable('tab\there\nline\u0000\u007f\u0085\u009b\u202e\u2066\u2028')).toBe('tab\\there\\nline\\u0000\\u007f\\u0085\\u009b\\u202e\\u2066\\u2028');
    for (const text of ['Jar of orange marmalade', 'Zoë — “quoted” 日本語 🫖', 'Bearer error="invalid_token", scope="me items"']) expect(printable(text)).toBe(text);
    expect(printable(undefined)).toBe('undefined');
    expect(printable(401)).toBe('401');
  });

  it('keeps JSON valid and its indentation', () => {
    const value = { title: EVIL, csi: '\u009b2J', bidi: '\u202e' };
    const text = printableJson(value);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(JSON.parse(text)).toEqual(value);
    expect(text.split('\n')).toHaveLength(5);
  });
});
