/**
 * How fast one account and one client address may have passwords checked, successful logins
 * included: a token bucket each, kept in this process.
 * @module
 */

/**
 * A token bucket: `burst` checks at once, then `perSecond` more each second.
 *
 * @example
 * ```ts
 * const perAccount: BucketLimit = { burst: 5, perSecond: 0.5 };
 * ```
 */
export interface BucketLimit {
  burst: number;
  perSecond: number;
}

/**
 * The password budget's limits, per account and per client address, and how many of each it
 * remembers at most.
 *
 * @example
 * ```ts
 * const budget: PasswordBudgetSettings = { account: { burst: 5, perSecond: 0.5 }, address: { burst: 20, perSecond: 2 }, maxEntries: 10_000 };
 * ```
 */
export interface PasswordBudgetSettings {
  account: BucketLimit;
  address: BucketLimit;
  /** Most accounts remembered at once, and apart most addresses; the least recently used goes first. */
  maxEntries: number;
}

interface Bucket {
  tokens: number;
  /** Milliseconds since the epoch when `tokens` was last worked out. */
  at: number;
}

/**
 * What {@link PasswordBudget.take} answers: go ahead, or wait this many seconds.
 *
 * @example
 * ```ts
 * const spent: BudgetAnswer = budget.take('alice', '127.0.0.1');
 * ```
 */
export type BudgetAnswer = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * The password checks one account and one address may have, whether the passwords are right or
 * wrong. The failed-login throttle counts guesses; this counts work: a scrypt check costs tens of
 * milliseconds of a core, and a client looping a correct login would otherwise have every one
 * computed, and every other user's login wait behind them. Past its budget a login is refused
 * (429 with `Retry-After`) before any hash is computed, so a flood costs a map lookup per request.
 *
 * The buckets are this process's own, unlike the failure counts in the database: they protect
 * this process's CPU, which another instance's budget does not spend. An account is checked
 * first and its refusal spends nothing of the address's budget, so one account's flood does not
 * use up what other users behind the same address may do.
 *
 * @example
 * ```ts
 * const budget = new PasswordBudget(DEFAULTS.loginThrottle.passwords);
 * if (!budget.take('alice', '127.0.0.1').allowed) refuse();
 * ```
 */
export class PasswordBudget {
  private readonly accounts = new Map<string, Bucket>();
  private readonly addresses = new Map<string, Bucket>();

  constructor(
    private readonly settings: PasswordBudgetSettings,
    /** Milliseconds since the epoch. */
    private readonly now: () => number = Date.now,
  ) {
    for (const limit of [settings.account, settings.address]) {
      if (!(limit.burst >= 1) || !(limit.perSecond > 0) || !Number.isFinite(limit.burst) || !Number.isFinite(limit.perSecond)) {
        throw new RangeError('a bucket needs a burst of at least 1 and a positive, finite rate');
      }
    }
    if (!Number.isSafeInteger(settings.maxEntries) || settings.maxEntries < 1) throw new RangeError('maxEntries must be a positive integer');
  }

  /**
   * Spends one check of `account` and of `address`, or says how long to wait when either has
   * none left (nothing is spent then).
   *
   * @example
   * ```ts
   * const answer = budget.take(form.username, ctx.clientAddress);
   * if (!answer.allowed) throw tooManyAttemptsError(answer.retryAfterSeconds);
   * ```
   */
  take(account: string, address: string): BudgetAnswer {
    const now = this.now();
    const ofAccount = this.filled(this.accounts, account, this.settings.account, now);
    if (ofAccount.tokens < 1) return this.refusal(ofAccount, this.settings.account);
    const ofAddress = this.filled(this.addresses, address, this.settings.address, now);
    if (ofAddress.tokens < 1) return this.refusal(ofAddress, this.settings.address);
    ofAccount.tokens -= 1;
    ofAddress.tokens -= 1;
    this.remember(this.accounts, account, ofAccount);
    this.remember(this.addresses, address, ofAddress);
    return { allowed: true };
  }

  /**
   * Accounts and addresses remembered now; each at most `maxEntries`.
   *
   * @example
   * ```ts
   * budget.size(); // { accounts: 1, addresses: 1 }
   * ```
   */
  size(): { accounts: number; addresses: number } {
    return { accounts: this.accounts.size, addresses: this.addresses.size };
  }

  /** The bucket of `key` refilled up to now (a fresh, full one if it is not remembered). */
  private filled(buckets: Map<string, Bucket>, key: string, limit: BucketLimit, now: number): Bucket {
    const bucket = buckets.get(key);
    if (bucket === undefined) return { tokens: limit.burst, at: now };
    const elapsed = Math.max(0, now - bucket.at) / 1000;
    return { tokens: Math.min(limit.burst, bucket.tokens + elapsed * limit.perSecond), at: now };
  }

  private refusal(bucket: Bucket, limit: BucketLimit): BudgetAnswer {
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perSecond)) };
  }

  /** Keeps `bucket` as the most recently used; beyond `maxEntries` the least recently used is forgotten (it refills meanwhile anyway). */
  private remember(buckets: Map<string, Bucket>, key: string, bucket: Bucket): void {
    buckets.delete(key);
    buckets.set(key, bucket);
    if (buckets.size > this.settings.maxEntries) buckets.delete(buckets.keys().next().value!);
  }
}
