/**
 * One bounded load run against one URL.
 *
 * @example
 * ```ts
 * const request: LoadRequest = { url: 'http://127.0.0.1:4000/items', method: 'GET', headers: { authorization: 'Bearer abc' }, seconds: 3, connections: 16 };
 * ```
 */
export interface LoadRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Readonly<Record<string, string>>;
  body?: string;
  /** How long the run lasts (wrk rounds it up to whole seconds). */
  seconds: number;
  connections: number;
}

/**
 * What a load run measured.
 *
 * @example
 * ```ts
 * const result: LoadResult = { requests: 30_000, seconds: 3, rps: 10_000, p50Us: 1500, p99Us: 3100, non2xx: 0, errors: 0 };
 * ```
 */
export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Us: number;
  p99Us: number;
  /** Responses whose status was not 2xx: a run with any is not a valid measurement. */
  non2xx: number;
  /** Connection errors, read/write errors and timeouts. */
  errors: number;
}

/**
 * A load generator: wrk (its own process) or autocannon (through its API).
 *
 * @example
 * ```ts
 * const result = await generator.run({ url, method: 'GET', headers: {}, seconds: 3, connections: 16 });
 * ```
 */
export interface LoadGenerator {
  name: string;
  version: string;
  /** Latency resolution: wrk measures microseconds, autocannon whole milliseconds. */
  latencyResolutionUs: number;
  run(request: LoadRequest): Promise<LoadResult>;
}
