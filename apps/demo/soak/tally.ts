/**
 * What a soak phase counted. `requests` are the responses received; `errors` the requests that
 * got none (connection errors, timeouts); `unexpected` the responses whose status the request
 * did not allow; `throttled` the 429s, which the mix allows for logins.
 *
 * @example
 * ```ts
 * const counts: SoakCounts = tally.counts();
 * counts.serverErrors; // 5xx responses: 0 is the target
 * ```
 */
export interface SoakCounts {
  requests: number;
  errors: number;
  serverErrors: number;
  throttled: number;
  unexpected: number;
  /** Per request name: status (or `error`) → count. */
  byRequest: Record<string, Record<string, number>>;
  /** Distinct error messages, a few of each kind, so a failed run says why. */
  errorMessages: string[];
}

const MAX_MESSAGES = 10;

/**
 * Counts a soak phase's responses by request and status as they arrive.
 *
 * @example
 * ```ts
 * const tally = new SoakTally();
 * tally.response('REST users/me (alice)', 200, [200]);
 * tally.error('REST users/me (alice)', new Error('socket hang up'));
 * tally.counts().requests; // 1
 * ```
 */
export class SoakTally {
  private readonly totals = { requests: 0, errors: 0, serverErrors: 0, throttled: 0, unexpected: 0 };
  private readonly byRequest: Record<string, Record<string, number>> = {};
  private readonly errorMessages = new Set<string>();

  /**
   * Counts one response.
   *
   * @example
   * ```ts
   * tally.response('token, malformed JSON', 400, [400]);
   * ```
   */
  response(name: string, status: number, expected: readonly number[]): void {
    this.totals.requests += 1;
    if (status >= 500) this.totals.serverErrors += 1;
    if (status === 429) this.totals.throttled += 1;
    if (!expected.includes(status)) {
      this.totals.unexpected += 1;
      this.note(`${name}: unexpected ${status}`);
    }
    this.bump(name, String(status));
  }

  /**
   * Counts one request that got no response.
   *
   * @example
   * ```ts
   * tally.error('login alice (REST)', error);
   * ```
   */
  error(name: string, cause: unknown): void {
    this.totals.errors += 1;
    this.note(`${name}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.bump(name, 'error');
  }

  /**
   * A copy of the counts so far.
   *
   * @example
   * ```ts
   * const { requests, errors } = tally.counts();
   * ```
   */
  counts(): SoakCounts {
    return {
      ...this.totals,
      byRequest: structuredClone(this.byRequest),
      errorMessages: [...this.errorMessages],
    };
  }

  private bump(name: string, key: string): void {
    const statuses = (this.byRequest[name] ??= {});
    statuses[key] = (statuses[key] ?? 0) + 1;
  }

  private note(message: string): void {
    if (this.errorMessages.size < MAX_MESSAGES) this.errorMessages.add(message);
  }
}

/**
 * The sum of several phases' or instances' counts (error messages: the first few of each, in
 * order, at most as many as one tally keeps).
 *
 * @example
 * ```ts
 * const total = mergeCounts([a.counts(), b.counts()]);
 * total.requests === a.counts().requests + b.counts().requests; // true
 * ```
 */
export function mergeCounts(all: readonly SoakCounts[]): SoakCounts {
  const total: SoakCounts = { requests: 0, errors: 0, serverErrors: 0, throttled: 0, unexpected: 0, byRequest: {}, errorMessages: [] };
  const messages = new Set<string>();
  for (const counts of all) {
    total.requests += counts.requests;
    total.errors += counts.errors;
    total.serverErrors += counts.serverErrors;
    total.throttled += counts.throttled;
    total.unexpected += counts.unexpected;
    for (const [name, statuses] of Object.entries(counts.byRequest)) {
      const into = (total.byRequest[name] ??= {});
      for (const [status, count] of Object.entries(statuses)) into[status] = (into[status] ?? 0) + count;
    }
    for (const message of counts.errorMessages) if (messages.size < MAX_MESSAGES) messages.add(message);
  }
  total.errorMessages = [...messages];
  return total;
}
