import { createHash } from 'node:crypto';
import { FailureWindows, type ThrottleLimit } from './failure-windows.js';

/**
 * The login throttle's limits: failures per username, failures per client address, and how
 * many of each it remembers at most.
 *
 * @example
 * ```ts
 * const settings: LoginThrottleSettings = {
 *   username: { maxFailures: 5, windowSeconds: 900 },
 *   address: { maxFailures: 20, windowSeconds: 900 },
 *   maxEntries: 10_000,
 * };
 * ```
 */
export interface LoginThrottleSettings {
  username: ThrottleLimit;
  address: ThrottleLimit;
  /** Most usernames remembered at once, and apart most addresses; the oldest window goes first. */
  maxEntries: number;
}

/**
 * How a login attempt ended, which decides what it counts against:
 * - `granted`: clears the username's failures (and does not count against the address);
 * - `wrong-credentials` (unknown user or wrong password): a failure of the username and the address;
 * - `wrong-client` (client authentication failed, the password was never checked): a failure of
 *   the address only, so guessing a client secret cannot lock a user out;
 * - `refused-otherwise` (say an unknown scope): not a guess, counts against nothing.
 *
 * @example
 * ```ts
 * attempt.settle('wrong-credentials');
 * ```
 */
export type LoginOutcome = 'granted' | 'wrong-credentials' | 'wrong-client' | 'refused-otherwise';

/**
 * What {@link LoginThrottle.begin} answers: go ahead (and settle the attempt when it ends), or
 * wait this many seconds (the `Retry-After` value).
 *
 * @example
 * ```ts
 * const attempt: LoginAttempt = throttle.begin('alice', '127.0.0.1');
 * if (!attempt.allowed) throw tooManyAttemptsError(attempt.retryAfterSeconds);
 * ```
 */
export type LoginAttempt =
  | { allowed: true; settle(outcome: LoginOutcome): void }
  | { allowed: false; retryAfterSeconds: number };

// A username can be as long as the request body allows: remember a fixed-size digest instead.
const usernameKey = (username: string) => createHash('sha256').update(username).digest('base64url');

/**
 * Limits failed logins per username and per client address, each in a fixed window from its
 * first failure; refused attempts are not checked at all (no password hash is computed for
 * them). An attempt counts as a failure from the moment it begins, so attempts sent together
 * cannot all slip under the limit while their password checks run; settling it takes back what
 * it turned out not to be. The clock is injected, so tests need not wait.
 *
 * @example
 * ```ts
 * const throttle = new LoginThrottle(DEFAULTS.loginThrottle);
 * const attempt = throttle.begin(form.username, ctx.clientAddress);
 * if (!attempt.allowed) throw tooManyAttemptsError(attempt.retryAfterSeconds);
 * const user = await users.authenticate(form.username, form.password);
 * attempt.settle(user === null ? 'wrong-credentials' : 'granted');
 * ```
 */
export class LoginThrottle {
  private readonly usernames: FailureWindows;
  private readonly addresses: FailureWindows;

  constructor(
    settings: LoginThrottleSettings,
    /** Milliseconds since the epoch. */
    private readonly now: () => number = Date.now,
  ) {
    this.usernames = new FailureWindows(settings.username, settings.maxEntries);
    this.addresses = new FailureWindows(settings.address, settings.maxEntries);
  }

  /** Usernames and addresses remembered now: bounded by `maxEntries` each. */
  get size(): { usernames: number; addresses: number } {
    return { usernames: this.usernames.size, addresses: this.addresses.size };
  }

  /**
   * Starts a login attempt by `username` from `address`, or refuses it while either has used
   * up its failures; `retryAfterSeconds` is then the wait until both may try again.
   *
   * @example
   * ```ts
   * const attempt = throttle.begin('alice', '127.0.0.1');
   * ```
   */
  begin(username: string, address: string): LoginAttempt {
    const now = this.now();
    const user = usernameKey(username);
    const waitMs = Math.max(this.usernames.retryAfterMs(user, now), this.addresses.retryAfterMs(address, now));
    if (waitMs > 0) return { allowed: false, retryAfterSeconds: Math.ceil(waitMs / 1000) };
    const userWindow = this.usernames.add(user, now);
    const addressWindow = this.addresses.add(address, now);
    let settled = false;
    return {
      allowed: true,
      settle: (outcome) => {
        if (settled) return;
        settled = true;
        if (outcome === 'granted') this.usernames.clear(user);
        else if (outcome !== 'wrong-credentials') this.usernames.remove(user, userWindow);
        if (outcome === 'granted' || outcome === 'refused-otherwise') this.addresses.remove(address, addressWindow);
      },
    };
  }
}
