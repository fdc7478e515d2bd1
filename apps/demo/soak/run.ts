import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { runLogins } from './logins.js';
import { runOidcRaces, type RaceCounts } from './oidc-races.js';
import { soakRequests, type SoakTokens } from './mix.js';
import { runRawRequests } from './raw-requests.js';
import { mergeCounts, SoakTally, type SoakCounts } from './tally.js';

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
  /**
   * How many demo servers `npm run soak` starts (default 1); more than one share a PostgreSQL
   * server it starts too. {@link runSoak} soaks the targets it is given.
   */
  instances?: number;
  /** Load before the first memory sample, so start-up allocations are not counted as growth. */
  warmupSeconds: number;
  /** Load connections in all, spread evenly over the servers. */
  connections: number;
  /** Login loops running beside the connections (each login costs one scrypt). */
  loginConcurrency: number;
  /**
   * Requests racing for one authorization code of `/oidc`, then for one refresh token, spread
   * over the servers, one race after another beside the load (default 20; 0: no races).
   */
  racers?: number;
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
 * What a soak measured on one server: the counts of the measured run (and apart of the
 * warm-up), the load generator's throughput and latency against it, and its memory after the
 * warm-up and after the run.
 *
 * @example
 * ```ts
 * const [a, b] = report.instances;
 * a.run.serverErrors + b.run.serverErrors; // 0
 * ```
 */
export interface SoakInstanceReport {
  url: string;
  warmup: SoakCounts;
  run: SoakCounts;
  requestsPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  memory: { before: MemorySample; after: MemorySample; rssGrowth: number };
}

/**
 * What a soak measured: each server's report, and the counts of all of them together (the
 * measured run and apart the warm-up) with the load's total throughput.
 *
 * @example
 * ```ts
 * const report: SoakReport = await runSoak([target], options);
 * report.run.serverErrors; // 0
 * report.instances[0].memory.rssGrowth; // e.g. 0.012
 * ```
 */
export interface SoakReport {
  options: SoakOptions;
  /** The races at `/oidc` of the measured run: each must have exactly one winner. */
  races: RaceCounts;
  instances: SoakInstanceReport[];
  warmup: SoakCounts;
  run: SoakCounts;
  requestsPerSecond: number;
}

const DEFAULT_SETTLE_SECONDS = 5;
const DEFAULT_RACERS = 20;
// autocannon's own default: a request unanswered this long is an error.
const DEFAULT_TIMEOUT_SECONDS = 10;
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

/** Autocannon on `connections` connections against one server, every answer counted in `tally`. */
function load(url: string, mix: ReturnType<typeof soakRequests>, connections: number, seconds: number, tally: SoakTally, options: SoakOptions) {
  const requests = mix.map(({ name, method, path, headers, body, expected }) => ({
    method,
    path,
    headers: { ...headers },
    ...(body === undefined ? {} : { body }),
    onResponse: (status: number) => tally.response(name, status, expected),
  }));
  // Each connection runs the mix in order and loops. Started all at its first request, a short or
  // slow run would never reach its last ones: each connection starts at its own share instead.
  const step = Math.ceil(requests.length / connections);
  let started = 0;
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: seconds,
        ...(options.requestTimeoutSeconds === undefined ? {} : { timeout: options.requestTimeoutSeconds }),
        requests,
        setupClient: (client) => {
          const from = (started++ * step) % requests.length;
          if (from > 0) client.setRequests([...requests.slice(from), ...requests.slice(0, from)]);
        },
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    // A request that got no response (connection error, timeout): not tied to a request of the mix.
    instance.on('reqError', (error: Error) => tally.error('load connection', error));
  });
}

/** `total` connections spread over `servers`: the first ones get one more when it does not divide. */
const share = (total: number, servers: number, index: number) => Math.floor(total / servers) + (index < total % servers ? 1 : 0);

/**
 * One phase on every server at once, for `seconds`: the mix on its share of the connections,
 * the raw requests one at a time, and the login loops across all of them.
 */
async function phase(targets: readonly SoakTarget[], tokens: readonly SoakTokens[], seconds: number, options: SoakOptions) {
  const tallies = targets.map(() => new SoakTally());
  const stop = new AbortController();
  const timeoutMs = (options.requestTimeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
  const logins = runLogins(
    targets.map(({ url }, i) => ({ url, tally: tallies[i]! })),
    { concurrency: options.loginConcurrency, stop: stop.signal },
  );
  const raw = targets.map(({ url }, i) => runRawRequests(url, tallies[i]!, { stop: stop.signal, timeoutMs }));
  const racers = options.racers ?? DEFAULT_RACERS;
  const races =
    racers > 0
      ? runOidcRaces(
          targets.map(({ url }, i) => ({ url, tally: tallies[i]! })),
          { racers, stop: stop.signal },
        )
      : Promise.resolve({ codes: 0, refreshes: 0, lost: 0, doubled: 0 });
  try {
    // Each server's protected calls carry tokens another server issued (the next one; itself when alone).
    const results = await Promise.all(
      targets.map(({ url }, i) => load(url, soakRequests(tokens[(i + 1) % targets.length]!), share(options.connections, targets.length, i), seconds, tallies[i]!, options)),
    );
    stop.abort();
    return { tallies, results, races: await races };
  } finally {
    stop.abort();
    await Promise.all([logins, races, ...raw]);
  }
}

/**
 * Soaks the demo servers at `targets` (one, or several sharing a database): logs alice and bob
 * in on each, runs the mix of {@link soakRequests} on `connections` connections spread over
 * them (each server's protected calls with tokens another one issued), the raw requests of
 * {@link rawSoakRequests} beside, and {@link runLogins} across them, for the warm-up; lets the
 * servers settle and samples their memory, runs again for `durationSeconds`, settles and
 * samples again. Refuses any target but 127.0.0.1.
 *
 * @example
 * ```ts
 * const report = await runSoak([a, b], { durationSeconds: 60, warmupSeconds: 10, connections: 100, loginConcurrency: 2 });
 * ```
 */
export async function runSoak(given: SoakTarget | readonly SoakTarget[], options: SoakOptions, log: (line: string) => void = () => {}): Promise<SoakReport> {
  const targets: readonly SoakTarget[] = Array.isArray(given) ? given : [given as SoakTarget];
  if (targets.length === 0) throw new Error('A soak needs a server');
  for (const { url } of targets) {
    const { hostname } = new URL(url);
    if (hostname !== '127.0.0.1') throw new Error(`A soak runs against 127.0.0.1 only, not ${hostname}`);
  }
  if (options.connections < targets.length) throw new RangeError(`${options.connections} connections cannot be spread over ${targets.length} servers`);
  const tokens = await Promise.all(targets.map(({ url }) => tokensFor(url)));
  const settledMemory = async () => {
    await sleep((options.settleSeconds ?? DEFAULT_SETTLE_SECONDS) * 1000);
    return Promise.all(targets.map(lowestOf));
  };
  log(`warming up for ${options.warmupSeconds} s`);
  const warmup = await phase(targets, tokens, options.warmupSeconds, options);
  const before = await settledMemory();
  log(`running for ${options.durationSeconds} s on ${options.connections} connections over ${targets.length} server(s), ${options.loginConcurrency} login loops`);
  const { tallies, results, races } = await phase(targets, tokens, options.durationSeconds, options);
  const after = await settledMemory();
  const instances = targets.map(({ url }, i): SoakInstanceReport => {
    const result = results[i]!;
    return {
      url,
      warmup: warmup.tallies[i]!.counts(),
      run: tallies[i]!.counts(),
      requestsPerSecond: result.requests.average,
      latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
      memory: { before: before[i]!, after: after[i]!, rssGrowth: (after[i]!.rss - before[i]!.rss) / before[i]!.rss },
    };
  });
  return {
    options,
    races,
    instances,
    warmup: mergeCounts(instances.map((instance) => instance.warmup)),
    run: mergeCounts(instances.map((instance) => instance.run)),
    requestsPerSecond: instances.reduce((sum, instance) => sum + instance.requestsPerSecond, 0),
  };
}
