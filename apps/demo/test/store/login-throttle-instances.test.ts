import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../soak/instances.js';
import { PasswordQueue } from '../../src/store/password-queue.js';
import { SERVER_TIMEOUT_MS, startTestDemo, tempDataDir, TEST_TIMEOUT_MS, type TestDemo } from '../support/demo-server.js';
import { postToken, type JsonResponse } from '../support/http.js';
import { postgresBinForTests, startPostgres, type TestPostgres } from '../support/postgres.js';
import { controlPostgres, type PostgresControl } from './postgres-control.js';

// The login throttle of two demo servers on one PostgreSQL server, with logins held in the
// middle of their password checks: what one server has under way, the other sees; a login that
// never settles (the database went away under it) is not a failure; and the limit holds across
// both servers however many attempts are under way at once.
const bin = await postgresBinForTests('the login throttle tests on two servers');

/**
 * A password queue a test can hold shut: the logins that reach their password check while it is
 * held wait there (counted in `arrived`), their attempts begun, until it is released.
 */
class GatedQueue extends PasswordQueue {
  arrived = 0;
  private gate: Promise<void> | undefined;
  private open: () => void = () => undefined;

  hold(): void {
    this.arrived = 0;
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.gate = undefined;
    this.open();
  }

  override run<T>(key: object, task: () => Promise<T>): Promise<T> {
    const gate = this.gate;
    if (gate === undefined) return super.run(key, task);
    this.arrived += 1;
    return gate.then(() => super.run(key, task));
  }
}

/** Resolves once `done` holds (polled). */
async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const WINDOW_SECONDS = 900;
/** Failures a username may have per window (few: every login held is a password hash to compute). */
const LIMIT = 3;
const BOB = { username: 'bob', password: 'builder', scope: 'me' };

describe.skipIf(bin === undefined)('the login throttle of two servers on one PostgreSQL server, with logins under way', () => {
  let postgres: TestPostgres;
  let control: PostgresControl;
  let dataDir: string;
  const demos: TestDemo[] = [];
  const queues = { a: new GatedQueue(), b: new GatedQueue() };
  // The throttle's clock, on both servers: the real one, which a test may move ahead.
  const clock = { ahead: 0 };
  let a: TestDemo;
  let b: TestDemo;
  beforeAll(async () => {
    postgres = await startPostgres(bin!);
    control = await controlPostgres(bin!, postgres.url);
    dataDir = await tempDataDir();
    const port = await freePort();
    const shared = {
      publicUrl: `http://127.0.0.1:${port}`,
      databaseUrl: postgres.url,
      loginThrottle: { username: { maxFailures: LIMIT, windowSeconds: WINDOW_SECONDS }, address: { maxFailures: 1_000, windowSeconds: WINDOW_SECONDS }, maxEntries: 1_000 },
      clock: () => Date.now() + clock.ahead,
    };
    const starts = await Promise.allSettled([
      startTestDemo(dataDir, { ...shared, port, passwordQueue: queues.a }),
      startTestDemo(dataDir, { ...shared, passwordQueue: queues.b }),
    ]);
    for (const started of starts) if (started.status === 'fulfilled') demos.push(started.value);
    for (const started of starts) if (started.status === 'rejected') throw started.reason;
    [a, b] = demos as [TestDemo, TestDemo];
  }, 2 * SERVER_TIMEOUT_MS);
  afterAll(async () => {
    queues.a.release();
    queues.b.release();
    await Promise.all(demos.map((demo) => demo.stop()));
    await postgres?.stop();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  }, SERVER_TIMEOUT_MS);

  /** `count` logins of `fields` sent to `server`, held at its password check until the test releases them. */
  async function heldLogins(server: TestDemo, queue: GatedQueue, count: number, fields: Record<string, string>): Promise<Promise<JsonResponse>[]> {
    queue.hold();
    const pending = Array.from({ length: count }, () => postToken(server.url, fields));
    await until(() => queue.arrived === count, `${count} logins at the password check`);
    return pending;
  }

  const retryOf = (answer: JsonResponse) => [answer.status, answer.headers.get('retry-after')];

  it('correct logins under way on one server: the other tells a correct login to try again in a moment, not to wait out the window', async () => {
    const held = await heldLogins(a, queues.a, LIMIT, BOB);
    // Attempts under way fill bob's limit: on either server, one more waits a second.
    const onB = await postToken(b.url, BOB);
    const onA = await postToken(a.url, BOB);
    queues.a.release();
    expect((await Promise.all(held)).map((answer) => answer.status)).toEqual(Array(LIMIT).fill(200));
    expect(retryOf(onA)).toEqual([429, '1']);
    expect(retryOf(onB)).toEqual([429, '1']);
    expect(onB.body.error_description).toMatch(/at once/);
    // They all settled as correct: nothing is left against bob.
    expect((await postToken(b.url, BOB)).status).toBe(200);
  }, TEST_TIMEOUT_MS);

  it('PostgreSQL gone while correct logins are under way: none of them becomes a failure, and bob is not locked out for the window', async () => {
    const held = await heldLogins(a, queues.a, LIMIT, BOB);
    await control.stop();
    let answered: number[];
    try {
      queues.a.release();
      answered = (await Promise.all(held)).map((answer) => answer.status);
    } finally {
      await control.start();
    }
    // On either server, the attempts left unsettled hold bob's limit for a moment only, as under way…
    for (const server of [a, b]) expect(retryOf(await postToken(server.url, BOB))).toEqual([429, '1']);
    // …until they expire, long before the window would end.
    clock.ahead += 60_000;
    expect((await postToken(b.url, BOB)).status).toBe(200);
    expect((await postToken(a.url, BOB)).status).toBe(200);
    // Their tokens could not be stored, nor their attempts settled: each was answered 503, to be tried again.
    expect(answered).toEqual(Array(LIMIT).fill(503));
  }, TEST_TIMEOUT_MS * 2);

  it('wrong passwords sent at once over both servers, all held under way: no more than the limit are checked', async () => {
    const guess = { username: 'dave', password: 'x' };
    queues.a.hold();
    queues.b.hold();
    const answers: (JsonResponse | undefined)[] = Array.from({ length: 8 });
    const pending = answers.map((_, i) => postToken((i % 2 === 0 ? a : b).url, guess).then((answer) => (answers[i] = answer)));
    // As many as the limit reach their password checks; the others are refused before any is checked.
    await until(() => queues.a.arrived + queues.b.arrived === LIMIT && answers.filter(Boolean).length === 8 - LIMIT, 'the attempts to be begun or refused');
    for (const answer of answers.filter((x) => x !== undefined)) expect(retryOf(answer)).toEqual([429, '1']);
    queues.a.release();
    queues.b.release();
    await Promise.all(pending);
    expect(answers.map((answer) => answer!.status).sort()).toEqual([...Array(LIMIT).fill(400), ...Array(8 - LIMIT).fill(429)]);
    expect(queues.a.arrived + queues.b.arrived).toBe(LIMIT);
    // The limit's failures now: the window is waited out, on either server.
    for (const server of [a, b]) {
      const refused = await postToken(server.url, guess);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(WINDOW_SECONDS - 60);
    }
  }, TEST_TIMEOUT_MS);
});
