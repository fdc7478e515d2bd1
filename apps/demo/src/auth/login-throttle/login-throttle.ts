import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../../store/database.js';
import type { LoginFailureRow } from '../../store/schema.js';
import type { PasswordBudget } from './password-budget.js';
import { tooLateError } from './too-many-attempts-error.js';

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
  /**
   * How long an attempt counts as under way at most, in seconds (default
   * {@link LOGIN_ATTEMPT_SECONDS}): one never settled (its process died, the database went away
   * before it could settle) stops counting then, and is no failure.
   */
  attemptSeconds?: number;
}

/**
 * How long a login attempt counts as under way at most, by default: far longer than a password
 * check takes, even queued behind others, and short enough that attempts left unsettled by an
 * outage hold a username back for moments, not for a window.
 *
 * @example
 * ```ts
 * new LoginThrottle(db, { ...DEFAULTS.loginThrottle, attemptSeconds: LOGIN_ATTEMPT_SECONDS });
 * ```
 */
export const LOGIN_ATTEMPT_SECONDS = 30;

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

// A username can be as long as the request body allows: remember a fixed-size digest instead.
const usernameKey = (username: string) => createHash('sha256').update(username).digest('base64url');

/** How a client is told to wait when attempts still under way fill a limit: they settle within a password check or two. */
const UNDER_WAY_RETRY_SECONDS = 1;

/** Expired attempts a `begin` deletes at most (more than the one it adds: the table stays small). */
const ATTEMPTS_SWEPT = 16;

/** What `begin` finds of one key: its failures in the current window, and its attempts under way. */
interface KeyState {
  kind: Kind;
  failures: number;
  ends_at_ms: number;
  under_way: number;
}

/**
 * Limits failed logins per username and per client address, each in a fixed window from its
 * first failure; refused attempts are not checked at all (no password hash is computed for
 * them). The counts live in the database, so a restart does not forget them and every process
 * sharing the database counts against the same limits.
 *
 * An attempt is recorded as under way when it begins (`login_attempts`), apart from the failures
 * (`login_failures`), and a limit counts both: attempts sent together, to one process or to
 * several, cannot all slip under it while their password checks run. Each `begin` checks and
 * records under a lock of its username and one of its address, reading both tables in one
 * statement. Settling turns the attempt into what it was, in one transaction: a failure
 * (`wrong-credentials`, `wrong-client`), or nothing. So only a wrong guess is ever a failure: an
 * attempt that never settles (the database went away under it, its process died) stops counting
 * when it expires (`attemptSeconds`), and a limit filled by attempts under way is answered with
 * a wait of a second (`reason: 'under-way'`), on every process alike, never with the window. An
 * attempt that settles after it expired may have run beside attempts begun in its place: it is
 * counted, but its answer is refused (503, {@link tooLateError}), so no more guesses than the
 * limit are ever answered. The clock is injected, so tests need not wait.
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
  private readonly attemptMs: number;

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
    this.attemptMs = (settings.attemptSeconds ?? LOGIN_ATTEMPT_SECONDS) * 1000;
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
    const user = username === null ? null : usernameKey(username);
    if (user !== null && this.budget !== undefined) {
      const spent = this.budget.take(user, address);
      if (!spent.allowed) return { allowed: false, retryAfterSeconds: spent.retryAfterSeconds, reason: 'password-budget' };
    }
    const begun = await this.db.transaction(async (tx) => {
      // One lock per key, taken in one order (username, then address): attempts on the same keys
      // queue up and never deadlock.
      if (user !== null) await tx.query("SELECT pg_advisory_xact_lock(hashtext('login-failures username ' || $1))", [user]);
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('login-failures address ' || $1))", [address]);
      // Failures and attempts under way in one statement, so in one snapshot: an attempt settling
      // meanwhile is seen either under way or as what it settled as, never as neither.
      const { rows } = await tx.query<KeyState>(
        `SELECT k.kind, coalesce(f.failures, 0)::int AS failures, coalesce(f.ends_at_ms, 0) AS ends_at_ms,
                (CASE k.kind
                   WHEN 'username' THEN (SELECT count(*) FROM login_attempts a WHERE a.username_key = k.key AND a.expires_at_ms > $3::bigint)
                   ELSE (SELECT count(*) FROM login_attempts a WHERE a.address = k.key AND a.expires_at_ms > $3::bigint)
                 END)::int AS under_way
           FROM (VALUES ('username', $1::text), ('address', $2::text)) AS k (kind, key)
           LEFT JOIN login_failures f ON f.kind = k.kind AND f.key = k.key AND f.ends_at_ms > $3::bigint
          WHERE k.key IS NOT NULL`,
        [user, address, now],
      );
      const full = rows.filter((row) => row.failures + row.under_way >= this.limits[row.kind].max);
      if (full.length > 0) {
        // Failures fill a limit: its window is waited out (the longest, if both are full). Else
        // attempts under way fill them, which settle within moments, or expire.
        const failed = full.filter((row) => row.failures >= this.limits[row.kind].max);
        if (failed.length === 0) return { retryAfterSeconds: UNDER_WAY_RETRY_SECONDS, reason: 'under-way' as const };
        return { retryAfterSeconds: Math.ceil(Math.max(...failed.map((row) => Number(row.ends_at_ms) - now)) / 1000), reason: 'failures' as const };
      }
      // Attempts that expired unsettled, a few at a time, none another transaction is deleting.
      await tx.query(
        `DELETE FROM login_attempts WHERE id IN (
           SELECT id FROM login_attempts WHERE expires_at_ms <= $1::bigint LIMIT ${ATTEMPTS_SWEPT} FOR UPDATE SKIP LOCKED)`,
        [now],
      );
      const { rows: added } = await tx.query<{ id: unknown }>(
        'INSERT INTO login_attempts (username_key, address, expires_at_ms) VALUES ($1, $2, $3::bigint + $4::bigint) RETURNING id',
        [user, address, now, this.attemptMs],
      );
      return { id: added[0]!.id };
    });
    if (!('id' in begun)) return { allowed: false, ...begun };
    let settled = false;
    return {
      allowed: true,
      settle: async (outcome) => {
        if (settled) return;
        settled = true;
        const inTime = await this.settle(begun.id, user, address, outcome);
        // Expired, the attempt no longer held its place: others may have been let in beside it.
        if (!inTime && outcome !== 'refused-otherwise') throw tooLateError();
      },
    };
  }

  /**
   * Turns the attempt `id` into what it was, in one transaction: a failure of the keys its
   * `outcome` counts against, or nothing (a success clears the username's failures). Answers
   * whether it was still under way, not expired.
   */
  private async settle(id: unknown, user: string | null, address: string, outcome: LoginOutcome): Promise<boolean> {
    const counted: [Kind, string][] =
      outcome === 'wrong-client' ? [['address', address]]
      : outcome === 'wrong-credentials' && user !== null ? [['username', user], ['address', address]]
      : [];
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ expires_at_ms: number }>('DELETE FROM login_attempts WHERE id = $1 RETURNING expires_at_ms', [id]);
      const now = this.now();
      const inTime = rows[0] !== undefined && Number(rows[0].expires_at_ms) > now;
      // Username rows before address rows, in every transaction: settling attempts never deadlock.
      for (const [kind, key] of counted) await this.count(tx, kind, key, now);
      if (outcome === 'granted' && user !== null && inTime) {
        await tx.query(`DELETE FROM login_failures WHERE kind = 'username' AND key = $1`, [user]);
      }
      return inTime;
    });
  }

  /** Counts one failure of the key (a new window if its last one ended). */
  private async count(tx: Queryable, kind: Kind, key: string, now: number): Promise<void> {
    const { rows } = await tx.query<{ inserted: boolean }>(
      `INSERT INTO login_failures AS f (kind, key, failures, ends_at_ms) VALUES ($1, $2, 1, $3::bigint + $4::bigint)
       ON CONFLICT (kind, key) DO UPDATE SET
         failures   = CASE WHEN f.ends_at_ms <= $3::bigint THEN 1 ELSE f.failures + 1 END,
         ends_at_ms = CASE WHEN f.ends_at_ms <= $3::bigint THEN EXCLUDED.ends_at_ms ELSE f.ends_at_ms END
       RETURNING (xmax = 0) AS inserted`,
      [kind, key, now, this.limits[kind].windowMs],
    );
    if (rows[0]?.inserted === true) await this.prune(tx, kind, now);
  }

  /**
   * Drops ended windows, then the oldest beyond `maxEntries`: the table stays bounded under a
   * flood. Rows another transaction holds are skipped (a later prune takes them), never waited for.
   */
  private async prune(tx: Queryable, kind: Kind, now: number): Promise<void> {
    await tx.query(
      `DELETE FROM login_failures WHERE kind = $1 AND key IN (
         SELECT key FROM login_failures WHERE kind = $1 AND ends_at_ms <= $2 FOR UPDATE SKIP LOCKED)`,
      [kind, now],
    );
    await tx.query(
      `DELETE FROM login_failures WHERE kind = $1 AND key IN (
         SELECT key FROM login_failures WHERE kind = $1 ORDER BY ends_at_ms DESC, key OFFSET $2 FOR UPDATE SKIP LOCKED)`,
      [kind, this.settings.maxEntries],
    );
  }
}
