import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../../store/database.js';
import type { LoginFailureRow } from '../../store/schema.js';
import type { PasswordBudget } from './password-budget.js';

/**
 * How many failures a key may have within a window before it is refused.
 *
 * @example
 * ```ts
 * const perUsername: ThrottleLimit = { maxFailures: 5, windowSeconds: 900 };
 * ```
 */
export interface ThrottleLimit {
  /** Failures allowed per window; the next attempt is refused until the window ends. */
  maxFailures: number;
  /** Length of a window, counted from the first failure in it. */
  windowSeconds: number;
}

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
 * await attempt.settle('wrong-credentials');
 * ```
 */
export type LoginOutcome = 'granted' | 'wrong-credentials' | 'wrong-client' | 'refused-otherwise';

/**
 * What {@link LoginThrottle.begin} answers: go ahead (and settle the attempt when it ends), or
 * wait this many seconds (the `Retry-After` value).
 *
 * @example
 * ```ts
 * const attempt: LoginAttempt = await throttle.begin('alice', '127.0.0.1');
 * if (!attempt.allowed) throw tooManyAttemptsError(attempt.retryAfterSeconds, attempt.reason);
 * ```
 */
export type LoginAttempt =
  | { allowed: true; settle(outcome: LoginOutcome): Promise<void> }
  | { allowed: false; retryAfterSeconds: number; reason: 'failures' | 'password-budget' | 'under-way' };

type Kind = LoginFailureRow['kind'];

const underWayKey = (kind: Kind, key: string) => `${kind}\u0000${key}`;

// A username can be as long as the request body allows: remember a fixed-size digest instead.
const usernameKey = (username: string) => createHash('sha256').update(username).digest('base64url');

/** Thrown inside the transaction to roll back what `begin` counted when another process won the race. */
class Refused {
  constructor(
    readonly waitMs: number,
    /** The limit is reached by attempts of this process still under way: they may yet be taken back. */
    readonly underWay = false,
  ) {}
}

/** How long a client is told to wait when attempts still under way fill a limit: they settle within a password check or two. */
const UNDER_WAY_RETRY_SECONDS = 1;

/**
 * Limits failed logins per username and per client address, each in a fixed window from its
 * first failure; refused attempts are not checked at all (no password hash is computed for
 * them). The counts live in the database (`login_failures`), so a restart does not forget them
 * and every process sharing the database counts against the same limits: each attempt is
 * counted under a lock of its username and one of its address, in one transaction with the check. An attempt counts as a failure
 * from the moment it begins, so attempts sent together cannot all slip under the limit while their
 * password checks run; settling it takes back what it turned out not to be. The clock is
 * injected, so tests need not wait.
 *
 * @example
 * ```ts
 * const throttle = new LoginThrottle(db, DEFAULTS.loginThrottle);
 * const attempt = await throttle.begin(form.username, ctx.clientAddress);
 * if (!attempt.allowed) throw tooManyAttemptsError(attempt.retryAfterSeconds, attempt.reason);
 * const user = await users.authenticate(form.username, form.password);
 * await attempt.settle(user === null ? 'wrong-credentials' : 'granted');
 * ```
 */
export class LoginThrottle {
  private readonly limits: Record<Kind, { max: number; windowMs: number }>;
  /**
   * Attempts of this process counted and not settled yet, per key: a limit they fill may free up
   * when they settle (a correct password takes its count back), so the refusal says so rather
   * than telling a client with the right password to wait out the whole window.
   */
  private readonly underWay = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly settings: LoginThrottleSettings,
    /** Milliseconds since the epoch. */
    private readonly now: () => number = Date.now,
    /** Password checks per account and address, right or wrong; none when absent. */
    private readonly budget?: PasswordBudget,
  ) {
    this.limits = {
      username: { max: settings.username.maxFailures, windowMs: settings.username.windowSeconds * 1000 },
      address: { max: settings.address.maxFailures, windowMs: settings.address.windowSeconds * 1000 },
    };
  }

  /**
   * Usernames and addresses remembered now: bounded by `maxEntries` each.
   *
   * @example
   * ```ts
   * await throttle.size(); // { usernames: 1, addresses: 1 }
   * ```
   */
  async size(): Promise<{ usernames: number; addresses: number }> {
    const { rows } = await this.db.query<{ kind: Kind; n: number }>('SELECT kind, count(*)::int AS n FROM login_failures GROUP BY kind');
    const of = (kind: Kind) => rows.find((row) => row.kind === kind)?.n ?? 0;
    return { usernames: of('username'), addresses: of('address') };
  }

  /**
   * Starts a login attempt by `username` from `address`, or refuses it while either has used
   * up its failures; `retryAfterSeconds` is then the wait until both may try again. With
   * `username` `null` it is a client authenticating without a password (a refresh, a
   * revocation): only the address is checked, and only a wrong client secret counts.
   * With a {@link PasswordBudget}, an attempt with a username also spends one password check of
   * the username and the address, or is refused (`reason: 'password-budget'`) before the
   * database is asked.
   *
   * @example
   * ```ts
   * const attempt = await throttle.begin('alice', '127.0.0.1');
   * ```
   */
  async begin(username: string | null, address: string): Promise<LoginAttempt> {
    const now = this.now();
    // No username: a client authenticating (a refresh, a revocation), counted by address only.
    const user = username === null ? '' : usernameKey(username);
    if (username !== null && this.budget !== undefined) {
      const spent = this.budget.take(user, address);
      if (!spent.allowed) return { allowed: false, retryAfterSeconds: spent.retryAfterSeconds, reason: 'password-budget' };
    }
    const keys: [Kind, string][] = [
      ...(username === null ? [] : [['username', user] as [Kind, string]]),
      ['address', address],
    ];
    let windows: number[];
    try {
      windows = await this.db.transaction(async (tx) => {
        // One lock per key, taken in one order (username, then address) whether or not its row
        // exists yet: attempts on the same keys queue up and never deadlock.
        if (username !== null) await tx.query("SELECT pg_advisory_xact_lock(hashtext('login-failures username ' || $1))", [user]);
        await tx.query("SELECT pg_advisory_xact_lock(hashtext('login-failures address ' || $1))", [address]);
        const { rows } = await tx.query<LoginFailureRow>(
          `SELECT kind, key, failures, ends_at_ms FROM login_failures
            WHERE (kind = 'username' AND key = $1) OR (kind = 'address' AND key = $2)`,
          [user, address],
        );
        const full = rows.filter((row) => this.waitMs(row, now) > 0);
        if (full.length > 0) {
          // Refused for the longest wait; if every full limit holds attempts still under way here, for a moment.
          const underWay = full.every((row) => (this.underWay.get(underWayKey(row.kind, row.key)) ?? 0) > 0);
          throw new Refused(Math.max(...full.map((row) => this.waitMs(row, now))), underWay);
        }
        const ends: number[] = [];
        for (const [kind, key] of keys) ends.push(await this.count(tx, kind, key, now));
        return ends;
      });
    } catch (error) {
      if (error instanceof Refused) {
        if (error.underWay) return { allowed: false, retryAfterSeconds: UNDER_WAY_RETRY_SECONDS, reason: 'under-way' };
        return { allowed: false, retryAfterSeconds: Math.ceil(error.waitMs / 1000), reason: 'failures' };
      }
      throw error;
    }
    const [userWindow, addressWindow] = (username === null ? [0, windows[0]] : windows) as [number, number];
    const counted = keys.map(([kind, key]) => underWayKey(kind, key));
    for (const key of counted) this.underWay.set(key, (this.underWay.get(key) ?? 0) + 1);
    let settled = false;
    return {
      allowed: true,
      settle: async (outcome) => {
        if (settled) return;
        settled = true;
        for (const key of counted) {
          const left = (this.underWay.get(key) ?? 1) - 1;
          if (left === 0) this.underWay.delete(key);
          else this.underWay.set(key, left);
        }
        if (username === null) {
          // Only a wrong client secret is a guess here.
          if (outcome !== 'wrong-client') await this.takeBack('address', address, addressWindow);
          return;
        }
        if (outcome === 'granted') await this.db.query(`DELETE FROM login_failures WHERE kind = 'username' AND key = $1`, [user]);
        else if (outcome !== 'wrong-credentials') await this.takeBack('username', user, userWindow);
        if (outcome === 'granted' || outcome === 'refused-otherwise') await this.takeBack('address', address, addressWindow);
      },
    };
  }

  private waitMs(row: LoginFailureRow, now: number): number {
    const endsAt = Number(row.ends_at_ms);
    return endsAt <= now || row.failures < this.limits[row.kind].max ? 0 : endsAt - now;
  }

  /** Counts one failure of the key (a new window if its last one ended); returns when the window ends. */
  private async count(tx: Queryable, kind: Kind, key: string, now: number): Promise<number> {
    const { max, windowMs } = this.limits[kind];
    const { rows } = await tx.query<{ ends_at_ms: number; inserted: boolean }>(
      `INSERT INTO login_failures AS f (kind, key, failures, ends_at_ms) VALUES ($1, $2, 1, $3::bigint + $4::bigint)
       ON CONFLICT (kind, key) DO UPDATE SET
         failures   = CASE WHEN f.ends_at_ms <= $3::bigint THEN 1 ELSE f.failures + 1 END,
         ends_at_ms = CASE WHEN f.ends_at_ms <= $3::bigint THEN EXCLUDED.ends_at_ms ELSE f.ends_at_ms END
       WHERE f.ends_at_ms <= $3::bigint OR f.failures < $5
       RETURNING ends_at_ms, (xmax = 0) AS inserted`,
      [kind, key, now, windowMs, max],
    );
    const row = rows[0];
    // Another process filled the window between the check and this count.
    if (row === undefined) throw new Refused(windowMs);
    if (row.inserted) await this.prune(tx, kind, now);
    return Number(row.ends_at_ms);
  }

  /** Drops ended windows, then the oldest beyond `maxEntries`: the table stays bounded under a flood. */
  private async prune(tx: Queryable, kind: Kind, now: number): Promise<void> {
    await tx.query('DELETE FROM login_failures WHERE kind = $1 AND ends_at_ms <= $2', [kind, now]);
    await tx.query(
      `DELETE FROM login_failures WHERE kind = $1 AND key IN (
         SELECT key FROM login_failures WHERE kind = $1 ORDER BY ends_at_ms DESC, key OFFSET $2)`,
      [kind, this.settings.maxEntries],
    );
  }

  /** Takes back one failure counted in the window ending at `endsAt`, if that is still the key's window. */
  private async takeBack(kind: Kind, key: string, endsAt: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('UPDATE login_failures SET failures = failures - 1 WHERE kind = $1 AND key = $2 AND ends_at_ms = $3', [kind, key, endsAt]);
      await tx.query('DELETE FROM login_failures WHERE kind = $1 AND key = $2 AND failures <= 0', [kind, key]);
    });
  }
}
