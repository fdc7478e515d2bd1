/**
 * The command-line client with a token endpoint whose answers carry no `expires_in`: the token's
 * lifetime is unknown (RFC 6749 §5.1), so the client refreshes nothing ahead (no refresh, no
 * reconnection, on any command), and refreshes once the server refuses the token (401
 * `invalid_token`). The token endpoint is the demo's own, behind a node:http proxy that takes
 * `expires_in` out of its answers; the demo's public URL is the proxy's, so DPoP proofs name it.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/client/cli.js';
import type { ClientSession } from '../../src/client/session.js';
import { SERVER_TIMEOUT_MS, startTestDemo, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';

/** Long enough for a login and two watches on a busy machine; short enough to wait out. */
const TOKEN_TTL_SECONDS = 10;
vi.setConfig({ testTimeout: TEST_TIMEOUT_MS + TOKEN_TTL_SECONDS * 1000 });

let demo: TestDemo;
let proxy: Server;
let proxyUrl: string;
let dir: string;
/** Tokens the token endpoint issued through the proxy (each a login or a refresh; a DPoP client's request asked for a nonce first is not one). */
let tokensIssued = 0;

/**
 * Forwards every request to the demo as it is, WebSocket upgrades included; the token endpoint's
 * JSON answers lose `expires_in`.
 */
function startProxy(): Promise<Server> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const isToken = req.method === 'POST' && path === '/api/token';
    const upstream = httpRequest({ host: '127.0.0.1', port: new URL(demo.url).port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      if (!isToken || !String(answer.headers['content-type']).startsWith('application/json')) {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        return;
      }
      if (answer.statusCode === 200) tokensIssued += 1;
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        delete body.expires_in;
        const text = JSON.stringify(body);
        const { 'content-length': _length, 'transfer-encoding': _encoding, ...headers } = answer.headers;
        res.writeHead(answer.statusCode ?? 502, { ...headers, 'content-length': Buffer.byteLength(text) }).end(text);
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('upgrade', (req, socket, head) => {
    const upstream = connect(Number(new URL(demo.url).port), '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      upstream.write(head);
      socket.pipe(upstream).pipe(socket);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'trpc-oauth2-demo-client-'));
  proxy = await startProxy();
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  demo = await startTestDemo(undefined, { publicUrl: proxyUrl, accessTokenTtlSeconds: TOKEN_TTL_SECONDS });
}, SERVER_TIMEOUT_MS);
afterAll(async () => {
  proxy?.closeAllConnections();
  await new Promise((resolve) => proxy?.close(resolve));
  await demo?.stop();
  await rm(dir, { recursive: true, force: true });
}, SERVER_TIMEOUT_MS);

/** Runs one command on the session file `session`; `signal` stops a watch. */
async function cli(args: string[], session: string, signal?: AbortSignal) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    env: { DEMO_URL: proxyUrl, DEMO_SESSION: join(dir, session) },
    openBrowser: () => {},
    ...(signal === undefined ? {} : { signal }),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
const readSession = async (name: string): Promise<ClientSession> => JSON.parse(await readFile(join(dir, name), 'utf8'));

/**
 * `watch --count 3` (alice's three items): the tokens it got. A watch that refreshes
 * without end is stopped after a few, so that it fails rather than hangs.
 */
async function watchRefreshes(session: string, transport: 'ws' | 'sse'): Promise<{ refreshes: number; code: number; items: number }> {
  const before = tokensIssued;
  const stop = new AbortController();
  const watching = setInterval(() => tokensIssued - before >= 4 && stop.abort(), 10);
  try {
    const watched = await cli(['watch', '--transport', transport, '--count', '3'], session, stop.signal);
    return { refreshes: tokensIssued - before, code: watched.code, items: watched.out.split('\n').filter((line) => line.startsWith('item ')).length };
  } finally {
    clearInterval(watching);
  }
}

describe('a token response without expires_in', () => {
  for (const flags of [[], ['--bearer']] as const) {
    it(`refreshes nothing ahead, and refreshes once the server refuses the token (${flags.length === 0 ? 'DPoP-bound' : 'bearer'} tokens)`, async () => {
      const session = `alice${flags.join('')}.json`;
      const before = tokensIssued;
      expect((await cli(['login', '--user', 'alice', '--password', 'wonderland', '--scope', 'me items', ...flags], session)).code).toBe(0);
      expect(tokensIssued - before).toBe(1);
      const first = await readSession(session);
      expect(first.expiresAt).toBeNull();
      expect((await cli(['status'], session)).out).toMatch(/the access token has a lifetime the server did not give: it is refreshed when the server refuses it\.$/);

      // While the server takes the token: no refresh on a call, nor on a stream's connections.
      expect(JSON.parse((await cli(['call', 'users.me'], session)).out).username).toBe('alice');
      for (const transport of ['sse', 'ws'] as const) expect(await watchRefreshes(session, transport)).toEqual({ refreshes: 0, code: 0, items: 3 });
      expect(tokensIssued - before).toBe(1);
      expect((await readSession(session)).accessToken).toBe(first.accessToken);

      // Once it expires, the server refuses it (401 invalid_token): one refresh, and the call succeeds.
      const exp = decodeJwt(first.accessToken).exp!;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, (exp + 1) * 1000 - Date.now())));
      const called = await cli(['call', 'users.me'], session);
      expect({ code: called.code, err: called.err }).toEqual({ code: 0, err: '' });
      expect(JSON.parse(called.out).username).toBe('alice');
      expect(tokensIssued - before).toBe(2);
      const second = await readSession(session);
      expect(second.accessToken).not.toBe(first.accessToken);
      expect(second.expiresAt).toBeNull();
      expect((await cli(['refresh'], session)).out).toBe('Refreshed: new tokens for scope "me items", their lifetime not given by the server.');
    });
  }

  it('a watch whose token the server refuses refreshes once and goes on', async () => {
    const session = 'watch-expired.json';
    expect((await cli(['login', '--user', 'alice', '--password', 'wonderland', '--scope', 'me items'], session)).code).toBe(0);
    const exp = decodeJwt((await readSession(session)).accessToken).exp!;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, (exp + 1) * 1000 - Date.now())));
    expect(await watchRefreshes(session, 'sse')).toEqual({ refreshes: 1, code: 0, items: 3 });
  });
});
