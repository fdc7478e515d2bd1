import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliceCode, CookieSession, pkcePair, redeemCode, swaggerAuthorizeUrl } from '../support/authorization-code.js';
import { SERVER_TIMEOUT_MS, startTestDemo, tempDataDir, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';
import { bearer, login, postToken, request, type JsonResponse } from '../support/http.js';
import { postgresBinForTests, startPostgres, type TestPostgres } from '../support/postgres.js';
import { controlPostgres, type PostgresControl } from '../store/postgres-control.js';
import { signMcpToken } from '../support/tokens.js';
import { expectNoUncaughtExceptions } from '../support/uncaught.js';

// The demo on a PostgreSQL server that drops a connection under a request, or goes away for a
// while: the request is answered 503 (the client may retry, `Retry-After` says when), never a 500
// that reads as a bug, never a stack, and the process lives on to serve once the database is back.
const bin = await postgresBinForTests('the database outage tests');

/** What a 503 of the demo looks like, whatever the face: the status, `Retry-After`, nothing of the fault. */
function expectUnavailable(answer: JsonResponse, what: string): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(503);
  expect(Number(answer.headers.get('retry-after')), what).toBeGreaterThan(0);
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  // No stack, no driver's words: neither the database's message nor a source file.
  expect(text, what).not.toMatch(/ECONNREFUSED|terminat|\.ts:|\.js:|\n\s+at /i);
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

describe.skipIf(bin === undefined)('the demo when PostgreSQL drops a connection or goes away', () => {
  let postgres: TestPostgres;
  let control: PostgresControl;
  let demo: TestDemo;
  let dataDir: string;
  expectNoUncaughtExceptions();
  beforeAll(async () => {
    postgres = await startPostgres(bin!);
    control = await controlPostgres(bin!, postgres.url);
    dataDir = await tempDataDir();
    demo = await startTestDemo(dataDir, { databaseUrl: postgres.url });
  }, SERVER_TIMEOUT_MS);
  afterAll(async () => {
    await demo?.stop();
    await postgres?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  }, SERVER_TIMEOUT_MS);

  it('a connection ended while a refresh holds it in a transaction: 503, and the server goes on', async () => {
    const { refresh_token } = await login(demo.url, 'alice', 'wonderland');
    // The refresh's transaction waits on the table the test holds, and its connection is ended there.
    const holder = await control.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE refresh_tokens IN ACCESS EXCLUSIVE MODE');
      const refreshed = postToken(demo.url, { grant_type: 'refresh_token', refresh_token });
      let ended: number[] = [];
      for (let tries = 0; ended.length === 0 && tries < 500; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        ended = await control.terminate("wait_event_type = 'Lock' AND query ILIKE '%refresh_tokens%'");
      }
      expect(ended).toHaveLength(1);
      expectUnavailable(await refreshed, 'the refresh');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // The process lives, and the pool serves: the same token refreshes now.
    expect((await postToken(demo.url, { grant_type: 'refresh_token', refresh_token })).status).toBe(200);
  }, TEST_TIMEOUT_MS);

  it('PostgreSQL stopped: the token endpoint, the API, the MCP endpoint and the authorization server answer 503 with Retry-After; started again, they serve', async () => {
    const tokens = await login(demo.url, 'alice', 'wonderland');
    const oidc = await redeemCode(demo.url, await aliceCode(demo.url));
    expect(oidc.status).toBe(200);
    const code = await aliceCode(demo.url);
    const mcpToken = await signMcpToken(demo, 'alice');
    await control.stop();
    try {
      const faces: [string, () => Promise<JsonResponse>][] = [
        ['password grant (REST)', () => postToken(demo.url, { username: 'alice', password: 'wonderland' })],
        ['refresh grant (REST)', () => postToken(demo.url, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token })],
        ['revocation (REST)', () => request(`${demo.url}/api/revoke`, form({ token: tokens.refresh_token }))],
        [
          'password grant (tRPC)',
          () =>
            request(`${demo.url}/trpc/auth.token`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ json: { grant_type: 'password', username: 'alice', password: 'wonderland' } }),
            }),
        ],
        ['GET /api/users/me', () => request(`${demo.url}/api/users/me`, { headers: bearer(tokens.access_token) })],
        ['GET /api/users/me (a token of /oidc)', () => request(`${demo.url}/api/users/me`, { headers: bearer(oidc.body.access_token) })],
        ['users.me (tRPC)', () => request(`${demo.url}/trpc/users.me`, { headers: bearer(tokens.access_token) })],
        [
          'a tool call at /mcp (a token of /oidc for it)',
          () =>
            request(`${demo.url}/mcp`, {
              method: 'POST',
              headers: { ...bearer(mcpToken), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } }),
            }),
        ],
        ['/oidc/token (code)', () => codeAnswer(demo.url, code)],
        ['/oidc/token (refresh)', () => request(`${demo.url}/oidc/token`, form({ grant_type: 'refresh_token', client_id: 'swagger-ui', refresh_token: oidc.body.refresh_token }))],
        [
          '/oidc/auth (a browser)',
          () =>
            request(`${demo.url}/oidc/auth?${new URLSearchParams({ response_type: 'code', client_id: 'swagger-ui', redirect_uri: code.redirectUri, scope: 'me', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' })}`, {
              redirect: 'manual',
              headers: { accept: 'text/html' },
            }),
        ],
        ['/oidc/token/revocation', () => request(`${demo.url}/oidc/token/revocation`, form({ token: oidc.body.refresh_token, client_id: 'swagger-ui' }))],
      ];
      for (const [what, ask] of faces) {
        expectUnavailable(await ask(), what);
      }
    } finally {
      await control.start();
    }
    expect((await postToken(demo.url, { username: 'alice', password: 'wonderland' })).status).toBe(200);
    expect((await request(`${demo.url}/api/users/me`, { headers: bearer(tokens.access_token) })).status).toBe(200);
    expect((await redeemCode(demo.url, code)).status).toBe(200);
  }, TEST_TIMEOUT_MS * 3);

  it('PostgreSQL stopped: the login page and its form answer 503 with Retry-After and a page saying to try again; started again, the same login goes on', async () => {
    // A browser on the login page of an authorization request, with its cookies.
    const session = new CookieSession();
    const { url: loginPage, response } = await session.follow(swaggerAuthorizeUrl(demo.url, pkcePair().challenge));
    expect(loginPage).toContain('/interaction/');
    expect(response.status).toBe(200);
    await response.text();
    const read = async (answer: Promise<Response>): Promise<JsonResponse> => {
      const response = await answer;
      return { status: response.status, headers: response.headers, body: await response.text() };
    };
    const page = () => read(session.fetch(loginPage, { headers: { accept: 'text/html' } }));
    const submit = () => read(session.fetch(`${loginPage}/login`, form({ username: 'alice', password: 'wonderland' })));
    await control.stop();
    try {
      for (const [what, ask] of [
        ['GET /interaction/<uid>', page],
        ['POST /interaction/<uid>/login', submit],
      ] as const) {
        const answer = await ask();
        expectUnavailable(answer, what);
        expect(answer.headers.get('content-type'), what).toMatch(/^text\/html/);
        expect(answer.body, what).toMatch(/unavailable for a moment/i);
        expect(answer.body, what).toMatch(/try again/i);
      }
    } finally {
      await control.start();
    }
    // The interaction was kept in the database: the same page, then the same form, go on.
    expect((await page()).status).toBe(200);
    const loggedIn = await submit();
    expect(loggedIn.status, String(loggedIn.body)).toBe(303);
    expect(loggedIn.headers.get('location')).toContain('/oidc/auth/');
  }, TEST_TIMEOUT_MS * 2);
});

/** A code redeemed at `/oidc/token`, read with its headers. */
const codeAnswer = (baseUrl: string, fields: Awaited<ReturnType<typeof aliceCode>>) =>
  request(
    `${baseUrl}/oidc/token`,
    form({ grant_type: 'authorization_code', client_id: fields.clientId, code: fields.code, redirect_uri: fields.redirectUri, code_verifier: fields.codeVerifier }),
  );
