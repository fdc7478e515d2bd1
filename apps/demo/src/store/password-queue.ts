import { availableParallelism } from 'node:os';

/**
 * What a {@link PasswordQueue} reports as it runs, for tests and measurements: a check of `key`
 * started, or ended.
 *
 * @example
 * ```ts
 * const events: PasswordQueueEvent[] = [];
 * const queue = new PasswordQueue({ concurrency: 1, onEvent: (event) => events.push(event) });
 * ```
 */
export interface PasswordQueueEvent {
  type: 'start' | 'end';
  key: object;
  /** Checks running at that moment (after a start, before an end). */
  running: number;
}

/**
 * How a {@link PasswordQueue} runs.
 *
 * @example
 * ```ts
 * const options: PasswordQueueOptions = { concurrency: 2 };
 * ```
 */
export interface PasswordQueueOptions {
  /** Password hashes computed at once, across all requests. Default: the number of CPUs. */
  concurrency?: number;
  onEvent?: (event: PasswordQueueEvent) => void;
}

interface Job {
  run: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Every password hash of the process goes through here: at most `concurrency` run at once, at
 * most one per requester (`key`: a request, so the calls of one tRPC batch share it), and
 * requesters take turns. A batch of logins thus costs what the same logins sent one after another
 * cost, and cannot hold the CPU while another client's login waits: that one waits for at most
 * one hash per requester ahead of it, never for the whole batch.
 *
 * @example
 * ```ts
 * const queue = new PasswordQueue();
 * const ok = await queue.run(ctx.req, () => verifyPassword(password, stored));
 * ```
 */
export class PasswordQueue {
  private readonly concurrency: number;
  private readonly onEvent: ((event: PasswordQueueEvent) => void) | undefined;
  /** Requesters with work waiting, in turn order; each with its own jobs in order. */
  private readonly waiting = new Map<object, Job[]>();
  private readonly busy = new Set<object>();
  private running = 0;

  constructor({ concurrency = availableParallelism(), onEvent }: PasswordQueueOptions = {}) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
    this.concurrency = concurrency;
    this.onEvent = onEvent;
  }

  /**
   * Runs `task` for `key` when its turn comes.
   *
   * @example
   * ```ts
   * await queue.run(request, () => hashPassword(password));
   * ```
   */
  run<T>(key: object, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const jobs = this.waiting.get(key);
      const job: Job = { run: task, resolve: resolve as (value: unknown) => void, reject };
      if (jobs === undefined) this.waiting.set(key, [job]);
      else jobs.push(job);
      this.next();
    });
  }

  /** The first requester in turn order with no check running, without copying the line. */
  private nextRequester(): object | undefined {
    for (const key of this.waiting.keys()) if (!this.busy.has(key)) return key;
    return undefined;
  }

  private next(): void {
    while (this.running < this.concurrency) {
      const key = this.nextRequester();
      if (key === undefined) return;
      const jobs = this.waiting.get(key)!;
      const job = jobs.shift()!;
      // Its next job, if any, goes to the back of the line: requesters take turns.
      this.waiting.delete(key);
      if (jobs.length > 0) this.waiting.set(key, jobs);
      this.busy.add(key);
      this.running += 1;
      this.onEvent?.({ type: 'start', key, running: this.running });
      job
        .run()
        .then(job.resolve, job.reject)
        .finally(() => {
          this.running -= 1;
          this.busy.delete(key);
          this.onEvent?.({ type: 'end', key, running: this.running });
          this.next();
        });
    }
  }
}
