import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { LOGIN_ATTEMPT_SECONDS, LoginThrottle, type LoginAttempt, type LoginOutcome } from '../../src/auth/login-throttle/login-throttle.js';
import { PasswordBudget } from '../../src/auth/login-throttle/password-budget.js';
import { openPglite, type Database } from '../../src/store/database.js';
import { migrate } from '../../src/store/schema.js';

// Every attempt is a transaction on PGlite: slow on a busy machine.
vi.setConfig({ testTimeout: 30_000 });

// The throttle keeps its counts in the database: an in-memory one here, emptied before each test.
let db: Database;
// Creating PGlite takes seconds, more on a busy machine.
beforeAll(async () => {
  db = await openPglite();
  await migrate(db);
}, 60_000);
afterAll(() => db.close());
beforeEach(() => db.exec('DELETE FROM login_failures; DELETE FROM login_attempts'));

const START = Date.parse('2030-01-01T00:00:00Z');
const settings = {
  username: { maxFailures: 3, windowSeconds: 60 },
  address: { maxFailures: 5, windowSeconds: 120 },
  maxEntries: 1_000,
};

/** A throttle on a clock the test moves. */
function throttleAt() {
  const clock = { now: START };
  return { clock, throttle: new LoginThrottle(db, settings, () => clock.now) };
}

const allowed = async (pending: Promise<LoginAttempt>) => {
  const attempt = await pending;
  if (!attempt.allowed) throw new Error(`refused for ${attempt.retryAfterSeconds} s`);
  return attempt;
};

/** Begins and settles `count` attempts, each of which must be allowed. */
const attempts = async (throttle: LoginThrottle, count: number, username: string, address: string, outcome: LoginOutcome) => {
  for (let i = 0; i < count; i += 1) await (await allowed(throttle.begin(username, address))).settle(outcome);
};
const isAllowed = async (pending: Promise<LoginAttempt>) => (await pending).allowed;

describe('LoginThrottle', async () => {
  it('refuses a username after its failures, for what is left of the window, then lets it try again', async () => {
    const { clock, throttle } = throttleAt();
    await attempts(throttle, 3, 'alice', '10.0.0.1', 'wrong-credentials');
    expect(await throttle.begin('alice', '10.0.0.2')).toEqual({ allowed: false, retryAfterSeconds: 60, reason: 'failures' });
    clock.now += 59_001;
    expect(await throttle.begin('alice', '10.0.0.3')).toEqual({ allowed: false, retryAfterSeconds: 1, reason: 'failures' });
    clock.now += 999;
    expect(await isAllowed(throttle.begin('alice', '10.0.0.3'))).toBe(true);
  });

  it('refuses an address after its failures, whatever the username (password spraying)', async () => {
    const { clock, throttle } = throttleAt();
    for (const username of ['u1', 'u2', 'u3', 'u4', 'u5']) await attempts(throttle, 1, username, '10.0.0.1', 'wrong-credentials');
    clock.now += 20_000;
    expect(await throttle.begin('someone-else', '10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 100, reason: 'failures' });
    expect(await isAllowed(throttle.begin('someone-else', '10.0.0.2'))).toBe(true);
  });

  it('answers the longer wait when both the username and the address are refused', async () => {
    const { clock, throttle } = throttleAt();
    await attempts(throttle, 2, 'x', '10.0.0.1', 'wrong-credentials');
    clock.now += 30_000;
    await attempts(throttle, 3, 'alice', '10.0.0.1', 'wrong-credentials');
    // alice's window ends in 60 s; the address's, opened 30 s earlier and twice as long, in 90 s.
    expect(await throttle.begin('alice', '10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 90, reason: 'failures' });
  });

  it('clears the username’s failures on success, but not the address’s', async () => {
    const { throttle } = throttleAt();
    await attempts(throttle, 2, 'alice', '10.0.0.1', 'wrong-credentials');
    await attempts(throttle, 1, 'alice', '10.0.0.1', 'granted');
    await attempts(throttle, 2, 'alice', '10.0.0.1', 'wrong-credentials');
    expect(await isAllowed(throttle.begin('alice', '10.0.0.2'))).toBe(true);
    // 4 failures from 10.0.0.1 so far, and the success did not count: one more is allowed.
    await attempts(throttle, 1, 'bob', '10.0.0.1', 'wrong-credentials');
    expect(await throttle.begin('carol', '10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 120, reason: 'failures' });
  });

  it.each<[LoginOutcome, boolean, boolean]>([
    ['wrong-credentials', true, true],
    ['wrong-client', false, true],
    ['refused-otherwise', false, false],
    ['granted', false, false],
  ])('counts %s against the username: %s, the address: %s', async (outcome, username, address) => {
    // As many as each limit allows: from as many addresses, and as many usernames.
    const byUsername = throttleAt().throttle;
    for (let i = 0; i < 3; i += 1) await (await allowed(byUsername.begin('alice', `10.0.1.${i}`))).settle(outcome);
    expect(await isAllowed(byUsername.begin('alice', '10.0.0.9'))).toBe(!username);
    const byAddress = throttleAt().throttle;
    for (let i = 0; i < 5; i += 1) await (await allowed(byAddress.begin(`user-${i}`, '10.0.0.1'))).settle(outcome);
    expect(await isAllowed(byAddress.begin('bob', '10.0.0.1'))).toBe(!address);
  });

  it('counts attempts in flight, so that concurrent guesses cannot pass the limit', async () => {
    const { throttle } = throttleAt();
    const inFlight = await Promise.all([1, 2, 3].map(() => allowed(throttle.begin('alice', '10.0.0.1'))));
    expect(await isAllowed(throttle.begin('alice', '10.0.0.2'))).toBe(false);
    // Settling takes back what an attempt turned out not to be; settling twice changes nothing.
    await inFlight[0]!.settle('refused-otherwise');
    await inFlight[0]!.settle('refused-otherwise');
    await inFlight[1]!.settle('wrong-credentials');
    await inFlight[2]!.settle('wrong-credentials');
    await (await allowed(throttle.begin('alice', '10.0.0.2'))).settle('wrong-credentials');
    expect(await isAllowed(throttle.begin('alice', '10.0.0.3'))).toBe(false);
  });

  // Attempts under way may yet be right: a limit they fill is not a wall of failures to wait out.
  it('tells an attempt refused by attempts still under way to try again in a moment, and one refused by failures to wait out the window', async () => {
    const { throttle } = throttleAt();
    const inFlight = await Promise.all([1, 2, 3].map(() => allowed(throttle.begin('alice', '10.0.0.1'))));
    expect(await throttle.begin('alice', '10.0.0.2')).toEqual({ allowed: false, retryAfterSeconds: 1, reason: 'under-way' });
    // One is right: the username's count is cleared, and the next attempt goes ahead.
    await inFlight[0]!.settle('granted');
    await (await allowed(throttle.begin('alice', '10.0.0.2'))).settle('granted');
    for (const attempt of inFlight.slice(1)) await attempt.settle('wrong-credentials');
    // Three failures, none under way: the window is waited out.
    await attempts(throttle, 3, 'carol', '10.0.0.3', 'wrong-credentials');
    expect(await throttle.begin('carol', '10.0.0.3')).toEqual({ allowed: false, retryAfterSeconds: 60, reason: 'failures' });
    // A second throttle on the same database (another process) sees this one's attempts under way
    // as under way too: a correct login there is told to try again in a moment, not to wait the window.
    const other = new LoginThrottle(db, settings, () => START);
    const mine = await Promise.all([1, 2, 3].map(() => allowed(throttle.begin('bob', '10.0.0.4'))));
    expect(await other.begin('bob', '10.0.0.5')).toEqual({ allowed: false, retryAfterSeconds: 1, reason: 'under-way' });
    for (const attempt of mine) await attempt.settle('granted');
    await (await allowed(other.begin('bob', '10.0.0.5'))).settle('granted');
  });

  it('counts failures only when attempts settle as wrong: attempts under way alone never make a window to wait out', async () => {
    const { throttle } = throttleAt();
    const inFlight = await Promise.all([1, 2, 3].map(() => allowed(throttle.begin('alice', '10.0.0.1'))));
    expect(await throttle.size()).toEqual({ usernames: 0, addresses: 0 });
    await inFlight[0]!.settle('wrong-credentials');
    expect(await throttle.size()).toEqual({ usernames: 1, addresses: 1 });
    // One failure and two under way fill the limit of three: a moment's wait, not the window.
    expect(await throttle.begin('alice', '10.0.0.2')).toMatchObject({ retryAfterSeconds: 1, reason: 'under-way' });
    for (const attempt of inFlight.slice(1)) await attempt.settle('wrong-credentials');
    expect(await throttle.begin('alice', '10.0.0.2')).toEqual({ allowed: false, retryAfterSeconds: 60, reason: 'failures' });
  });

  it('keeps usernames apart exactly (no case folding, no trimming)', async () => {
    const { throttle } = throttleAt();
    await attempts(throttle, 3, 'alice', '10.0.0.1', 'wrong-credentials');
    for (const other of ['Alice', 'alice ', 'alicе' /* Cyrillic е */]) expect(await isAllowed(throttle.begin(other, '10.0.0.2'))).toBe(true);
  });

  it('forgets expired windows and never remembers more than maxEntries keys', async () => {
    const clock = { now: START };
    const throttle = new LoginThrottle(db, { ...settings, maxEntries: 100 }, () => clock.now);
    for (let i = 0; i < 300; i += 1) {
      clock.now += 1;
      await (await allowed(throttle.begin(`user-${i}`, `10.0.${i >> 8}.${i & 255}`))).settle('wrong-credentials');
    }
    expect(await throttle.size()).toEqual({ usernames: 100, addresses: 100 });
    // The newest windows are the ones kept.
    expect(await isAllowed(throttle.begin('user-299', '10.0.1.43'))).toBe(true);
    clock.now += 120_000;
    await (await allowed(throttle.begin('late', '10.9.9.9'))).settle('wrong-credentials');
    expect(await throttle.size()).toEqual({ usernames: 1, addresses: 1 });
  });
});

describe('LoginThrottle windows', () => {
  it('lets an attempt that never settles (its process died, the database went away) expire: it held its place for a while, and is no failure', async () => {
    const { clock, throttle } = throttleAt();
    for (let i = 0; i < 3; i++) await allowed(throttle.begin('alice', '10.0.0.1'));
    expect(await throttle.begin('alice', '10.0.0.2')).toMatchObject({ retryAfterSeconds: 1, reason: 'under-way' });
    clock.now += LOGIN_ATTEMPT_SECONDS * 1000;
    // Expired: nothing of them counts, on this throttle or any other on the database.
    const other = new LoginThrottle(db, settings, () => clock.now);
    await attempts(other, 2, 'alice', '10.0.0.2', 'wrong-credentials');
    await attempts(throttle, 1, 'alice', '10.0.0.2', 'granted');
    expect(await throttle.size()).toEqual({ usernames: 0, addresses: 1 });
    // Swept as later attempts begin.
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM login_attempts')).rows[0]!.n).toBe(0);
  });

  it('refuses the answer of an attempt settled after it expired (others may have taken its place), and still counts its failure', async () => {
    const { clock, throttle } = throttleAt();
    const late = await allowed(throttle.begin('alice', '10.0.0.1'));
    const granted = await allowed(throttle.begin('alice', '10.0.0.1'));
    clock.now += LOGIN_ATTEMPT_SECONDS * 1000 + 1;
    await expect(late.settle('wrong-credentials')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect(granted.settle('granted')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // The late failure counts; the late success clears nothing.
    await attempts(throttle, 2, 'alice', '10.0.0.2', 'wrong-credentials');
    expect(await throttle.begin('alice', '10.0.0.3')).toMatchObject({ allowed: false, reason: 'failures' });
    // An attempt refused otherwise (not a guess) may settle late: nothing to refuse.
    const other = await allowed(throttle.begin('bob', '10.0.0.4'));
    clock.now += LOGIN_ATTEMPT_SECONDS * 1000;
    await other.settle('refused-otherwise');
  });

  it('takes how long an attempt stays under way from its settings', async () => {
    const clock = { now: START };
    const throttle = new LoginThrottle(db, { ...settings, attemptSeconds: 2 }, () => clock.now);
    for (let i = 0; i < 3; i++) await allowed(throttle.begin('alice', '10.0.0.1'));
    clock.now += 1_999;
    expect(await isAllowed(throttle.begin('alice', '10.0.0.1'))).toBe(false);
    clock.now += 1;
    expect(await isAllowed(throttle.begin('alice', '10.0.0.1'))).toBe(true);
  });

  it('keeps its counts in the database: a second throttle on it (a restart, another process) sees them', async () => {
    const { clock, throttle } = throttleAt();
    await attempts(throttle, 3, 'alice', '10.0.0.1', 'wrong-credentials');
    const other = new LoginThrottle(db, settings, () => clock.now);
    expect(await other.begin('alice', '10.0.0.2')).toEqual({ allowed: false, retryAfterSeconds: 60, reason: 'failures' });
  });
});

describe('LoginThrottle with a password budget', () => {
  const budgetOf = () => new PasswordBudget({ account: { burst: 2, perSecond: 0.001 }, address: { burst: 100, perSecond: 0.001 }, maxEntries: 100 });

  it('refuses a login past its budget before the database is asked, right or wrong password alike', async () => {
    const clock = { now: START };
    const throttle = new LoginThrottle(db, settings, () => clock.now, budgetOf());
    for (const outcome of ['granted', 'granted'] as const) await (await allowed(throttle.begin('alice', '10.0.0.1'))).settle(outcome);
    const refused = await throttle.begin('alice', '10.0.0.1');
    expect(refused).toMatchObject({ allowed: false, reason: 'password-budget' });
    // Refused before counting: no failure was recorded for it, and bob still goes ahead.
    expect(await throttle.size()).toEqual({ usernames: 0, addresses: 0 });
    await (await allowed(throttle.begin('bob', '10.0.0.1'))).settle('granted');
  });

  it('spends nothing for a client authenticating without a password', async () => {
    const throttle = new LoginThrottle(db, settings, () => START, budgetOf());
    for (let i = 0; i < 5; i++) await (await allowed(throttle.begin(null, '10.0.0.1'))).settle('granted');
    await allowed(throttle.begin('alice', '10.0.0.1'));
  });
});
