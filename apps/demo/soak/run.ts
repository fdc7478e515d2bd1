import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { runLogins } from './logins.js';
import { soakRequests, type SoakTokens } from './mix.js';
import { SoakTally, type SoakCounts } from './tally.js';

/**
 * The memory of the server process at one moment.
 *
 * @example
 * ```ts
 * const sample: MemorySample = { rss: 180_000_000, heapUsed: 40_000_000, collected: true };
 * ```
 */
export interface MemorySample {
  rss: number;
  heapUsed: number;
  /** Whether a full garbage collection ran just before (only a soak server exposes one). */
  collected: boolean;
}

/**
 * The server a soak runs against: its URL (loopback only) and a way to read its memory.
 *
 * @example
 * ```ts
 * const target: SoakTarget = { url: demo.url, memory: async () => ({ ...process.memoryUsage(), collected: false }) };
 * ```
 */
export interface SoakTarget {
  url: string;
  memory(): Promise<MemorySample>;
}

/**
 * How long and how hard a soak runs.
 *
 * @example
 * ```ts
 * const options: SoakOptions = { durationSeconds: 60, warmupSeconds: 10, connections: 100, loginConcurrency: 2 };
 * ```
 */
export interface SoakOptions {
  durationSeconds: number;
  /** Load before the first memory sample, so start-up allocations are not counted as growth. */
  warmupSeconds: number;
  connections: number;
  /** Login loops running beside the connections (each login costs one scrypt). */
  loginConcurrency: number;
  /**
   * A request unanswered this long counts as an error (a timeout); the load generator's
   * default, 10 s, when unset. A short run needs a shorter one, or a hung connection would
   * still be waiting when the run ends, and go uncounted.
   */
  requestTimeoutSeconds?: number;
  /**
   * Quiet time before memory is sampled (default 5 s): when the load stops, the server still
   * holds the requests it was serving and the pages it has freed but not yet returned to the
   * system; sampling at once counts them as growth. Then the lowest RSS of three samples a
   * second apart, each after a full GC, is kept.
   */
  settleSeconds?: number;
}

/**
 * What a soak measured: the counts of the measured run (and apart of the warm-up), the
 * load generator's throughput and latency, and the server's memory after the warm-up and after
 * the run.
 *
 * @example
 * ```ts
 * const report: SoakReport = await runSoak(target, options);
 * report.run.serverErrors; // 0
 * ```
 */
export interface SoakReport {
  options: SoakOptions;
  warmup: SoakCounts;
  run: SoakCounts;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  memory: { before: MemorySample; after: MemorySample; rssGrowth: number };
}

const DEFAULT_SETTLE_SECONDS = 5;
const SAMPLES = 3;
const SAMPLE_INTERVAL_MS = 1_000;

/**
 * The lowest of a few samples a second apart: pages freed by a collection go back to the
 * system a moment later, so a single sample can count up to a few tens of MiB that are gone
 * the next second. Memory that is really held shows in every sample.
 */
async function lowestOf(target: SoakTarget): Promise<MemorySample> {
  let lowest = await target.memory();
  for (let i = 1; i < SAMPLES; i += 1) {
    await sleep(SAMPLE_INTERVAL_MS);
    const sample = await target.memory();
    if (sample.rss < lowest.rss) lowest = sample;
  }
  return lowest;
}

async function loginFor(url: string, init: RequestInit, what: string): Promise<string> {
  const response = await fetch(url, init);
  const body = (await response.json()) as { access_token?: string; result?: { data?: { json?: { access_token?: string } } } };
  const token = body.access_token ?? body.result?.data?.json?.access_token;
  if (response.status !== 200 || token === undefined) throw new Error(`${what}: ${response.status} ${JSON.stringify(body)}`);
  return token;
}

/** Tokens for the protected calls: alice over REST, bob over tRPC. */
async function tokensFor(baseUrl: string): Promise<SoakTokens> {
  const form = (fields: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: fields });
  return {
    alice: await loginFor(`${baseUrl}/api/token`, form('username=alice&password=wonderland'), 'logging alice in'),
    bob: await loginFor(
      `${baseUrl}/trpc/auth.token`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ json: { username: 'bob', password: 'builder' } }) },
      'logging bob in',
    ),
  };
}

/** One phase: the request mix on every connection, logins beside, for `seconds`. */
async function phase(baseUrl: string, tokens: SoakTokens, seconds: number, options: SoakOptions) {
  const tally = new SoakTally();
  const mix = soakRequests(tokens);
  const stop = new AbortController();
  const logins = runLogins(baseUrl, tally, { concurrency: options.loginConcurrency, stop: stop.signal });
  try {
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        {
          url: baseUrl,
          connections: options.connections,
          duration: seconds,
          ...(options.requestTimeoutSeconds === undefined ? {} : { timeout: options.requestTimeoutSeconds }),
          requests: mix.map(({ name, method, path, headers, body, expected }) => ({
            method,
            path,
            headers: { ...headers },
            ...(body === undefined ? {} : { body }),
            onResponse: (status: number) => tally.response(name, status, expected),
          })),
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
      // A request that got no response (connection error, timeout): not tied to a request of the mix.
      instance.on('reqError', (error: Error) => tally.error('load connection', error));
    });
    return { tally, result };
  } finally {
    stop.abort();
    await logins;
  }
}

/**
 * Soaks the demo at `target`: logs alice and bob in, runs the mix of {@link soakRequests} on
 * `connections` connections with {@link runLogins} beside for the warm-up, lets the server
 * settle and samples its memory, runs again for `durationSeconds`, settles and samples again.
 * Refuses any target but 127.0.0.1.
 *
 * @example
 * ```ts
 * const report = await runSoak(target, { durationSeconds: 60, warmupSeconds: 10, connections: 100, loginConcurrency: 2 });
 * ```
 */
export async function runSoak(target: SoakTarget, options: SoakOptions, log: (line: string) => void = () => {}): Promise<SoakReport> {
  const { hostname } = new URL(target.url);
  if (hostname !== '127.0.0.1') throw new Error(`A soak runs against 127.0.0.1 only, not ${hostname}`);
  const tokens = await tokensFor(target.url);
  log(`warming up for ${options.warmupSeconds} s`);
  const settledMemory = async () => {
    await sleep((options.settleSeconds ?? DEFAULT_SETTLE_SECONDS) * 1000);
    return lowestOf(target);
  };
  const warmup = await phase(target.url, tokens, options.warmupSeconds, options);
  const before = await settledMemory();
  log(`running for ${options.durationSeconds} s on ${options.connections} connections, ${options.loginConcurrency} login loops`);
  const { tally, result } = await phase(target.url, tokens, options.durationSeconds, options);
  const after = await settledMemory();
  return {
    options,
    warmup: warmup.tally.counts(),
    run: tally.counts(),
    requestsPerSecond: result.requests.average,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    memory: { before, after, rssGrowth: (after.rss - before.rss) / before.rss },
  };
}
