import { rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CookieSession, pkcePair, swaggerAuthorizeUrl } from '../support/authorization-code.js';
import { SERVER_TIMEOUT_MS, startTestDemo, tempDataDir, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';
import { bearer, login, postToken, request, type JsonResponse } from '../support/http.js';
import { postgresBinForTests, startPostgres, type TestPostgres } from '../support/postgres.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { expectNoUncaughtExceptions } from '../support/uncaught.js';

// The demo on a PostgreSQL server that stops answering without closing anything (a partition, a
// host frozen: a proxy between them holds every byte), on connections it has and on new ones: a
// request waits for the configured timeouts at most, is answered 503 with `Retry-After` as in any
// other outage, the connection left unanswered is closed rather than used again, and once the
// network forwards again the same process serves.
const bin = await postgresBinForTests('the database timeout tests');

// Small, so the file runs in seconds; far above what a query takes on a loopback server.
const TIMEOUTS = { connectMs: 1_000, queryMs: 1_000 };
// A request may wait out a timeout more than once (its failure is recorded in the database too),
// but it never waits without bound.
const ANSWERED_WITHIN_MS = 3 * (TIMEOUTS.connectMs + TIMEOUTS.queryMs);
// A request of a demo that waits without bound is given up on here, well within the test's time.
const GIVE_UP_MS = ANSWERED_WITHIN_MS + 2_000;

/** `fetch`, read whole, given up on after {@link GIVE_UP_MS}; with how long the answer took. */
async function timed(ask: (signal: AbortSignal) => Promise<JsonResponse | Response>): Promise<{ answer: JsonResponse; ms: number }> {
  const started = Date.now();
  const answered = await ask(AbortSignal.timeout(GIVE_UP_MS));
  const answer = answered instanceof Response ? { status: answered.status, headers: answered.headers, body: await answered.text() } : answered;
  return { answer, ms: Date.now() - started };
}

/**
 * Waits (briefly) until the proxy has seen every one of `connections` closed: the demo closes a
 * connection before it answers, but the proxy hears of it on its own socket, maybe a turn later.
 */
async function closedSoon(connections: readonly { closedByClient: boolean }[]): Promise<void> {
  for (let tries = 0; tries < 50 && connections.some((connection) => !connection.closedByClient); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What a 503 of the demo looks like, whatever the face: the status, `Retry-After`, nothing of the fault. */
function expectUnavailable({ answer, ms }: { answer: JsonResponse; ms: number }, what: string): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(503);
  expect(Number(answer.headers.get('retry-after')), what).toBeGreaterThan(0);
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  // No stack, nothing of the fault: neither the driver's words nor the timeout's.
  expect(text, what).not.toMatch(/timeout|timed out|ETIMEDOUT|database|did not answer|\.ts:|\.js:|\n\s+at /i);
  expect(ms, what).toBeLessThan(ANSWERED_WITHIN_MS);
}

describe.skipIf(bin === undefined)('the demo when PostgreSQL stops answering', () => {
  let postgres: TestPostgres;
  let proxy: TcpProxy;
  let demo: TestDemo;
  let dataDir: string;
  expectNoUncaughtExceptions();
  beforeAll(async () => {
    postgres = await startPostgres(bin!);
    const url = new URL(postgres.url);
    proxy = await startTcpProxy(Number(url.port));
    url.port = String(proxy.port);
    dataDir = await tempDataDir();
    demo = await startTestDemo(dataDir, { databaseUrl: url.href, databaseTimeouts: TIMEOUTS });
  }, SERVER_TIMEOUT_MS);
  afterAll(async () => {
    // Forwarding, so the demo's pool closes its connections as it always does.
    proxy?.forward();
    await demo?.stop();
    await proxy?.close();
    await postgres?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  }, SERVER_TIMEOUT_MS);
  // Before the check of uncaught exceptions (after hooks run last registered first).
  afterEach(() => proxy.forward());

  /** The three faces asked while the database does not answer, at once: none may wait on another. */
  const askEveryFace = async (accessToken: string, interaction: { session: CookieSession; url: string }) => {
    const [grant, me, page] = await Promise.all([
      timed((signal) => request(`${demo.url}/api/token`, { method: 'POST', body: new URLSearchParams({ username: 'alice', password: 'wonderland' }), signal })),
      timed((signal) => request(`${demo.url}/api/users/me`, { headers: bearer(accessToken), signal })),
      timed((signal) => interaction.session.fetch(interaction.url, { headers: { accept: 'text/html' }, signal })),
    ]);
    expectUnavailable(grant, 'password grant (REST)');
    expectUnavailable(me, 'GET /api/users/me');
    expectUnavailable(page, 'the login page');
    expect(page.answer.body).toMatch(/unavailable/i);
  };

  /** Everything served again, from a pool the outage left nothing broken in. */
  const expectServing = async (accessToken: string, interaction: { session: CookieSession; url: string }) => {
    const again = await postToken(demo.url, { username: 'alice', password: 'wonderland' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    // More requests at once than the pool has connections: any connection handed out again with
    // an answer still due would answer one of them with the wrong rows.
    const answers = await Promise.all(Array.from({ length: 12 }, () => request(`${demo.url}/api/users/me`, { headers: bearer(accessToken) })));
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(answer.body.username).toBe('alice');
    }
    const page = await interaction.session.fetch(interaction.url, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<form method="post" action="[^"]*\/login"/);
  };

  /** A login page of the authorization server, as a browser reached it (with its cookies). */
  const loginPage = async () => {
    const session = new CookieSession();
    const { url, response } = await session.follow(swaggerAuthorizeUrl(demo.url, pkcePair().challenge));
    expect(url).toContain('/interaction/');
    expect(response.status).toBe(200);
    await response.text();
    return { session, url };
  };

  it('open connections stop answering: 503 with Retry-After in bounded time, the unanswered connections are closed, and the same process serves once they answer again', async () => {
    const { access_token } = await login(demo.url, 'alice', 'wonderland');
    const interaction = await loginPage();
    const before = proxy.connections.length;
    proxy.hold();
    await askEveryFace(access_token, interaction);
    // Connections the pool had before the outage that were sent a query the outage held: each
    // one is closed by the demo, so that no late answer can ever reach a query of its own.
    const unanswered = proxy.connections.slice(0, before).filter((connection) => connection.heldFromClient > 0);
    expect(unanswered.length).toBeGreaterThan(0);
    await closedSoon(unanswered);
    for (const connection of unanswered) expect(connection.closedByClient).toBe(true);
    // The held bytes of every connection still open are delivered now, late.
    proxy.forward();
    await expectServing(access_token, interaction);
  }, TEST_TIMEOUT_MS);

  it('new connections are accepted but never answered: 503 with Retry-After once the connect timeout passes, and serving once they are', async () => {
    const { access_token } = await login(demo.url, 'alice', 'wonderland');
    const interaction = await loginPage();
    proxy.hold();
    // The pool's connections are gone: every request needs a new one, which the proxy never answers.
    proxy.dropAll();
    // The pool learns of it from its connections' `close`, on a later turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const from = proxy.connections.length;
    await askEveryFace(access_token, interaction);
    const stalled = proxy.connections.slice(from);
    expect(stalled.length).toBeGreaterThan(0);
    await closedSoon(stalled);
    for (const connection of stalled) {
      expect(connection.openedWhileHolding).toBe(true);
      // The startup message went out and was never answered; the demo gave up on it.
      expect(connection.heldFromClient).toBeGreaterThan(0);
      expect(connection.closedByClient).toBe(true);
    }
    proxy.forward();
    await expectServing(access_token, interaction);
  }, TEST_TIMEOUT_MS);
});
