import { describe, expect, it } from 'vitest';
import { FailureWindows } from '../../src/auth/login-throttle/failure-windows.js';
import { LoginThrottle, type LoginAttempt, type LoginOutcome } from '../../src/auth/login-throttle/login-throttle.js';

const START = Date.parse('2030-01-01T00:00:00Z');
const settings = {
  username: { maxFailures: 3, windowSeconds: 60 },
  address: { maxFailures: 5, windowSeconds: 120 },
  maxEntries: 1_000,
};

/** A throttle on a clock the test moves. */
function throttleAt() {
  const clock = { now: START };
  return { clock, throttle: new LoginThrottle(settings, () => clock.now) };
}

const allowed = (attempt: LoginAttempt) => {
  if (!attempt.allowed) throw new Error(`refused for ${attempt.retryAfterSeconds} s`);
  return attempt;
};

/** Begins and settles `count` attempts, each of which must be allowed. */
const attempts = (throttle: LoginThrottle, count: number, username: string, address: string, outcome: LoginOutcome) => {
  for (let i = 0; i < count; i += 1) allowed(throttle.begin(username, address)).settle(outcome);
};

describe('LoginThrottle', () => {
  it('refuses a username after its failures, for what is left of the window, then lets it try again', () => {
    const { clock, throttle } = throttleAt();
    attempts(throttle, 3, 'alice', '10.0.0.1', 'wrong-credentials');
    expect(throttle.begin('alice', '10.0.0.2')).toEqual({ allowed: false, retryAfterSeconds: 60 });
    clock.now += 59_001;
    expect(throttle.begin('alice', '10.0.0.3')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.now += 999;
    expect(throttle.begin('alice', '10.0.0.3').allowed).toBe(true);
  });

  it('refuses an address after its failures, whatever the username (password spraying)', () => {
    const { clock, throttle } = throttleAt();
    for (const username of ['u1', 'u2', 'u3', 'u4', 'u5']) attempts(throttle, 1, username, '10.0.0.1', 'wrong-credentials');
    clock.now += 20_000;
    expect(throttle.begin('someone-else', '10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 100 });
    expect(throttle.begin('someone-else', '10.0.0.2').allowed).toBe(true);
  });

  it('answers the longer wait when both the username and the address are refused', () => {
    const { clock, throttle } = throttleAt();
    attempts(throttle, 2, 'x', '10.0.0.1', 'wrong-credentials');
    clock.now += 30_000;
    attempts(throttle, 3, 'alice', '10.0.0.1', 'wrong-credentials');
    // alice's window ends in 60 s; the address's, opened 30 s earlier and twice as long, in 90 s.
    expect(throttle.begin('alice', '10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 90 });
  });

  it('clears the username’s failures on success, but not the address’s', () => {
    const { throttle } = throttleAt();
    attempts(throttle, 2, 'alice', '10.0.0.1', 'wrong-credentials');
    attempts(throttle, 1, 'alice', '10.0.0.1', 'granted');
    attempts(throttle, 2, 'alice', '10.0.0.1', 'wrong-credentials');
    expect(throttle.begin('alice', '10.0.0.2').allowed).toBe(true);
    // 4 failures from 10.0.0.1 so far, and the success did not count: one more is allowed.
    attempts(throttle, 1, 'bob', '10.0.0.1', 'wrong-credentials');
    expect(throttle.begin('carol', '10.0.0.1')).toEqual({ allowed: false, retryAfterSeconds: 120 });
  });

  it.each<[LoginOutcome, boolean, boolean]>([
    ['wrong-credentials', true, true],
    ['wrong-client', false, true],
    ['refused-otherwise', false, false],
    ['granted', false, false],
  ])('counts %s against the username: %s, the address: %s', (outcome, username, address) => {
    // As many as each limit allows: from as many addresses, and as many usernames.
    const byUsername = throttleAt().throttle;
    for (let i = 0; i < 3; i += 1) allowed(byUsername.begin('alice', `10.0.1.${i}`)).settle(outcome);
    expect(byUsername.begin('alice', '10.0.0.9').allowed).toBe(!username);
    const byAddress = throttleAt().throttle;
    for (let i = 0; i < 5; i += 1) allowed(byAddress.begin(`user-${i}`, '10.0.0.1')).settle(outcome);
    expect(byAddress.begin('bob', '10.0.0.1').allowed).toBe(!address);
  });

  it('counts attempts in flight, so that concurrent guesses cannot pass the limit', () => {
    const { throttle } = throttleAt();
    const inFlight = [1, 2, 3].map(() => allowed(throttle.begin('alice', '10.0.0.1')));
    expect(throttle.begin('alice', '10.0.0.2').allowed).toBe(false);
    // Settling takes back what an attempt turned out not to be; settling twice changes nothing.
    inFlight[0]!.settle('refused-otherwise');
    inFlight[0]!.settle('refused-otherwise');
    inFlight[1]!.settle('wrong-credentials');
    inFlight[2]!.settle('wrong-credentials');
    allowed(throttle.begin('alice', '10.0.0.2')).settle('wrong-credentials');
    expect(throttle.begin('alice', '10.0.0.3').allowed).toBe(false);
  });

  it('keeps usernames apart exactly (no case folding, no trimming)', () => {
    const { throttle } = throttleAt();
    attempts(throttle, 3, 'alice', '10.0.0.1', 'wrong-credentials');
    for (const other of ['Alice', 'alice ', 'alicе' /* Cyrillic е */]) expect(throttle.begin(other, '10.0.0.2').allowed).toBe(true);
  });

  it('forgets expired windows and never remembers more than maxEntries keys', () => {
    const clock = { now: START };
    const throttle = new LoginThrottle({ ...settings, maxEntries: 100 }, () => clock.now);
    for (let i = 0; i < 1_000; i += 1) {
      allowed(throttle.begin(`user-${i}`, `10.0.${i >> 8}.${i & 255}`)).settle('wrong-credentials');
    }
    expect(throttle.size).toEqual({ usernames: 100, addresses: 100 });
    clock.now += 120_000;
    allowed(throttle.begin('late', '10.9.9.9')).settle('wrong-credentials');
    expect(throttle.size).toEqual({ usernames: 1, addresses: 1 });
  });
});

describe('FailureWindows', () => {
  it('drops the oldest window to make room, not the newest', () => {
    const failures = new FailureWindows({ maxFailures: 1, windowSeconds: 60 }, 2);
    failures.add('a', START);
    failures.add('b', START + 1);
    failures.add('c', START + 2);
    expect([failures.retryAfterMs('a', START + 3), failures.retryAfterMs('b', START + 3), failures.retryAfterMs('c', START + 3)]).toEqual([
      0, 59_998, 59_999,
    ]);
  });

  it('does not take a failure back from a later window than the one it was counted in', () => {
    const failures = new FailureWindows({ maxFailures: 1, windowSeconds: 60 }, 10);
    const stale = failures.add('a', START);
    failures.add('a', START + 60_000);
    failures.remove('a', stale);
    expect(failures.retryAfterMs('a', START + 60_000)).toBe(60_000);
  });
});
