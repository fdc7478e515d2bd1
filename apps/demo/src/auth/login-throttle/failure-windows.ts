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
 * One key's current window. Handed out by {@link FailureWindows.add} so that a reservation can
 * be taken back from the window it was added to, and from no later one.
 *
 * @example
 * ```ts
 * const window: FailureWindow = failures.add('alice', Date.now());
 * failures.remove('alice', window);
 * ```
 */
export interface FailureWindow {
  count: number;
  /** When the window ends, in milliseconds since the epoch. */
  endsAt: number;
}

/**
 * Failure counts per key in fixed windows that start at a key's first failure, in bounded
 * memory: expired windows are dropped as new ones open, and at `maxEntries` keys the oldest
 * window is dropped to make room. Every window has the same length, so the map's insertion
 * order is the order in which windows end, and dropping from its front is cheap (a clock that
steps back only delays that clean-up; the cap still holds).
 *
 * @example
 * ```ts
 * const failures = new FailureWindows({ maxFailures: 5, windowSeconds: 900 }, 10_000);
 * failures.add('alice', Date.now());
 * failures.retryAfterMs('alice', Date.now()); // 0 until the fifth failure
 * ```
 */
export class FailureWindows {
  private readonly windows = new Map<string, FailureWindow>();
  private readonly windowMs: number;

  constructor(
    private readonly limit: ThrottleLimit,
    private readonly maxEntries: number,
  ) {
    this.windowMs = limit.windowSeconds * 1000;
  }

  /** Keys remembered now (expired windows may linger until the next `add`). */
  get size(): number {
    return this.windows.size;
  }

  /**
   * Milliseconds until `key` may try again, or 0 when it may try now.
   *
   * @example
   * ```ts
   * if (failures.retryAfterMs(key, now) > 0) refuse();
   * ```
   */
  retryAfterMs(key: string, now: number): number {
    const window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now || window.count < this.limit.maxFailures) return 0;
    return window.endsAt - now;
  }

  /**
   * Counts one failure of `key`, opening a window if it has none running; returns the window.
   *
   * @example
   * ```ts
   * const window = failures.add(key, now);
   * ```
   */
  add(key: string, now: number): FailureWindow {
    this.dropExpired(now);
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      // Re-inserted at the end: the map stays ordered by the end of each window.
      this.windows.delete(key);
      if (this.windows.size >= this.maxEntries) this.windows.delete(this.windows.keys().next().value!);
      window = { count: 0, endsAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window;
  }

  /**
   * Takes back one failure counted in `window`, if that is still `key`'s window.
   *
   * @example
   * ```ts
   * failures.remove(key, window); // the attempt turned out not to be a failure
   * ```
   */
  remove(key: string, window: FailureWindow): void {
    if (this.windows.get(key) !== window) return;
    window.count -= 1;
    if (window.count <= 0) this.windows.delete(key);
  }

  /**
   * Forgets `key`'s failures.
   *
   * @example
   * ```ts
   * failures.clear(username); // after a successful login
   * ```
   */
  clear(key: string): void {
    this.windows.delete(key);
  }

  private dropExpired(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.endsAt > now) return;
      this.windows.delete(key);
    }
  }
}
