import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aptInstall } from '../src/apt-install.js';
import { runBench } from '../src/bench.js';
import { HTTP_PAIRS, PEER_TABLE } from '../src/http/pairs.js';
import { OPEN_LOOP_LENGTH } from '../src/http/suite.js';
import { selectInProcessCases } from '../src/in-process/suite.js';
import { SMOKE } from '../src/options.js';
import { prepareFastApi } from '../src/peer/fastapi.js';
import { OWNERS } from '../src/profile/cpu-profile-shares.js';
import { PROFILED } from '../src/profile/suite.js';
import type { PairReport } from '../src/report/pair-report.js';
import { renderResults } from '../src/report/render.js';
import type { BenchResults } from '../src/report/results.js';
import { DOC_BEGIN, DOC_END, updateDoc, writeResults } from '../src/report/write-results.js';
import { buildBenchOnce } from './build-once.js';

// The smoke run checks the shape of what the bench produces, never its speed.

const positive = expect.any(Number);
const expectPositive = (value: number | undefined, what: string) => {
  expect(value, what).toEqual(positive);
  expect(Number.isFinite(value) && value! > 0, `${what} = ${value}`).toBe(true);
};

const expectMeasured = (pair: PairReport, rounds: number) => {
  expect(pair.skipped, pair.id).toBeUndefined();
  expect(pair.rounds, pair.id).toHaveLength(rounds);
  pair.rounds.forEach((round, i) => expect(round.order, `${pair.id} round ${i}`).toEqual(i % 2 === 0 ? ['A', 'B'] : ['B', 'A']));
  for (const metric of pair.metrics) {
    // autocannon counts latency in whole milliseconds: a short smoke run may see a p99 of 0.
    if (metric === 'p99Us') {
      expect(pair.aMedian[metric]! >= 0 && pair.bMedian[metric]! >= 0, `${pair.id} p99`).toBe(true);
      continue;
    }
    expectPositive(pair.aMedian[metric], `${pair.id} A ${metric}`);
    expectPositive(pair.bMedian[metric], `${pair.id} B ${metric}`);
    const spread = pair.ratios[metric]!;
    expectPositive(spread.median, `${pair.id} ${metric} ratio`);
    expect(spread.min).toBeLessThanOrEqual(spread.median);
    expect(spread.max).toBeGreaterThanOrEqual(spread.median);
  }
  expect(pair.verdict).toEqual(pair.target === undefined ? 'none' : expect.stringMatching(/^(met|missed)$/));
};

beforeAll(() => buildBenchOnce(), 120_000);

describe('in-process section', () => {
  let results: BenchResults;
  beforeAll(async () => {
    results = await runBench({ ...SMOKE, sections: ['in-process'] }, null);
  }, 60_000);

  it('times every pair, rounds alternating, with a ratio and a verdict', () => {
    const pairs = results.inProcess!.pairs;
    expect(pairs.map((pair) => pair.id)).toEqual(selectInProcessCases().map((c) => c.id));
    for (const pair of pairs) {
      expect(pair.metrics).toEqual(['cpuNsPerCall']);
      expectMeasured(pair, SMOKE.inProcess.rounds);
    }
  });

  it('carries the targets the issue sets', () => {
    const targets = Object.fromEntries(results.inProcess!.pairs.map((pair) => [pair.id, pair.target?.text]));
    // The targets, each for both forms of the protected procedure (three steps, one step).
    expect(targets).toMatchObject({
      'bearer-two-scopes': '≤ 1.05×',
      'bearer-with-scopes': '≤ 1.05×',
      'header-reader-8k': '≤ 1.05× (flat)',
      'header-caller-8k': '≤ 1.05× (flat)',
      'header-with-scopes-8k': '≤ 1.05× (flat)',
      'scopes-at-once-100': '≤ 10× (linear)',
      'with-scopes-100': '≤ 10× (linear)',
      'scopes-chained-100': '≤ 10× (linear)',
      'verified-cached': '≤ 1.10×',
      'verify-floor-es256': '≤ 1.15×',
      'verify-floor-rs256': '≤ 1.15×',
      'verify-floor-eddsa': '≤ 1.15×',
    });
  });

  it('times the verified call, cached and uncached, against one empty middleware', () => {
    const pairs = Object.fromEntries(results.inProcess!.pairs.map((pair) => [pair.id, pair]));
    for (const id of ['verified-cached', 'verified-uncached', 'verified-cache-gain', 'cached-floor-ctx-keys', 'cached-floor-digest']) {
      expect(pairs[id]?.group, id).toBe('verified');
      expectMeasured(pairs[id]!, SMOKE.inProcess.rounds);
    }
    expect(pairs['verified-cached']!.a).toBe('1 pass-through middleware');
    expect(pairs['verified-uncached']!.a).toBe('1 pass-through middleware');
    // Goal 3's floor is measured against the same reference as goal 3 itself.
    expect(pairs['cached-floor-ctx-keys']!.a).toBe('1 pass-through middleware');
    expect(pairs['cached-floor-digest']!.a).toBe('1 pass-through middleware');
  });

  it('reports the bench process memory and leaves the http section out', () => {
    expectPositive(results.inProcess!.rssKiB.before, 'rss before');
    expectPositive(results.inProcess!.rssKiB.after, 'rss after');
    expect(results.http).toBeNull();
  });
});

describe('http section', () => {
  let results: BenchResults;
  let peerAvailable: Record<string, boolean>;
  beforeAll(async () => {
    const peers = await prepareFastApi({ python: SMOKE.python, install: false, note: () => {} });
    peerAvailable = { 'fastapi-default': peers.servers.default !== undefined, 'fastapi-fast': peers.servers.fast !== undefined };
    // The LTS side runs on this Node: the smoke run checks how it is served, not which Node it is.
    results = await runBench({ ...SMOKE, sections: ['http'], ltsNode: process.execPath }, null);
  }, 180_000);

  it('loads both sides of every pair; only a missing FastAPI stack may skip one', () => {
    const http = results.http!;
    expect(http.generator.name).toBe('autocannon');
    expect(http.pairs.map((pair) => pair.id)).toEqual(HTTP_PAIRS.map((pair) => pair.id));
    for (const pair of http.pairs) {
      const peer = HTTP_PAIRS.find((p) => p.id === pair.id)!.a[0];
      if (pair.skipped !== undefined && peer.startsWith('fastapi') && !peerAvailable[peer]) continue;
      const openLoop = HTTP_PAIRS.find((p) => p.id === pair.id)!.openLoop !== undefined;
      expect(pair.metrics).toEqual(['capacity', 'rps', 'p99Us', 'cpuUsPerRequest', ...(openLoop ? ['p50Us'] : [])]);
      expectMeasured(pair, SMOKE.http.rounds);
      // Every route answered 200 with the expected body before the load, and only 2xx under it.
      for (const round of pair.rounds) for (const sample of [round.a, round.b]) expect(sample.non2xx, pair.id).toBe(0);
      expect(pair.warnings, pair.id).toBeUndefined();
    }
  });

  it('loads both sides of a tail pair at one rate, open loop, below what the slower side served closed-loop', () => {
    const pairs = results.http!.pairs.filter((pair) => HTTP_PAIRS.find((p) => p.id === pair.id)!.openLoop !== undefined && pair.skipped === undefined);
    if (!peerAvailable['fastapi-fast']) return expect(pairs).toEqual([]);
    expect(pairs.map((pair) => pair.id)).toEqual([
      'tail-50-fastapi-fast-rest-itemsJwt',
      'tail-80-fastapi-fast-rest-itemsJwt',
      'tail-50-fastapi-fast-rest-lts-itemsJwt',
      'tail-80-fastapi-fast-rest-lts-itemsJwt',
    ]);
    // Each pair's runs are kept apart, FastAPI's included, so each tail row reads one rate.
    const tails = results.http!.tails.filter((row) => row.label.includes('same rate for both'));
    expect(tails).toHaveLength(2 * pairs.length);
    for (const row of tails) expect(row.runs, row.label).toBe(SMOKE.http.rounds);
    for (const pair of pairs) {
      const rate = Number(/, (\d+) req\/s$/.exec(pair.a)?.[1]);
      expect(pair.b.endsWith(`, ${rate} req/s`), pair.b).toBe(true);
      expect(rate).toBeGreaterThan(0);
      for (const round of pair.rounds) {
        for (const sample of [round.a, round.b]) {
          expect(sample.errors).toBe(0);
          // Every request sent on schedule was answered: as many as the schedule holds.
          expect(sample.requests).toBe(Math.round(rate * (SMOKE.http.seconds * OPEN_LOOP_LENGTH)));
        }
      }
    }
  });

  it('serves the REST face on the LTS Node beside this one, route by route, and says which Node that was', () => {
    const http = results.http!;
    expect(http.ltsNode).toBe(process.version);
    for (const route of ['bare', 'itemsJwt', 'itemsJwtCached']) {
      const pair = http.pairs.find((p) => p.id === `runtime-rest-${route}`)!;
      expect(pair.b, route).toContain('on LTS Node');
      expectMeasured(pair, SMOKE.http.rounds);
    }
    expect(renderResults(results, 'text')).toContain(`except those marked "on LTS Node": ${process.version}.`);
    // Its closed-loop tails sit beside the machine's Node's in the tail table.
    const tails = new Set(http.tails.map((row) => row.target));
    for (const target of ['rest-lts:itemsJwt', 'rest-lts:itemsJwtCached']) expect(tails.has(target), target).toBe(true);
  });

  it('reports every server’s memory before and after, and our servers’ heap after a collection', () => {
    for (const server of results.http!.servers) {
      if (server.skipped !== undefined) {
        expect(server.server).toMatch(/^fastapi-/);
        continue;
      }
      expectPositive(server.before?.rssKiB ?? undefined, `${server.server} rss before`);
      expectPositive(server.after?.rssKiB ?? undefined, `${server.server} rss after`);
      expect(server.after!.peakRssKiB!).toBeGreaterThanOrEqual(server.after!.rssKiB!);
      if (server.server.startsWith('fastapi')) {
        expect(server.heapAfterGcKiB).toBeUndefined();
      } else {
        // Our Node servers also answer the heap probe.
        expectPositive(server.heapAfterGcKiB?.before ?? undefined, `${server.server} heap before`);
        expectPositive(server.heapAfterGcKiB?.after ?? undefined, `${server.server} heap after`);
      }
    }
  });

  it('loads the protected route in both forms, three steps and one, on every face', () => {
    const targets = Object.fromEntries(results.http!.pairs.map((pair) => [pair.id, pair.target?.text]));
    for (const face of ['trpc-standalone', 'trpc-fetch', 'rest']) {
      expect(targets[`cost-${face}`], face).toBe('≥ 0.97×');
      expect(targets[`cost-one-step-${face}`], face).toBe('≥ 0.97×');
      expect(targets[`fastapi-fast-${face}-itemsOneStep`], face).toBe('≥ 1.00× (ahead)');
    }
  });

  it('loads the ES256-verified route on the REST face, against FastAPI with PyJWT when it runs', () => {
    const pair = results.http!.pairs.find((p) => p.id === 'fastapi-fast-rest-itemsJwt')!;
    expect(pair.group).toBe('verified JWT vs FastAPI');
    if (peerAvailable['fastapi-fast']) {
      expectMeasured(pair, SMOKE.http.rounds);
      expectPositive(pair.aMedian.capacity, 'FastAPI requests per CPU-second');
      expectPositive(pair.bMedian.capacity, 'REST requests per CPU-second');
    } else {
      expect(pair.skipped).toEqual(expect.any(String));
    }
  });

  it('holds the peer table (every stack bare vs verified JWT) and the verified routes’ tails, with their targets', () => {
    const http = results.http!;
    const peers = http.pairs.filter((pair) => pair.group.startsWith('peer table'));
    expect(peers.map((pair) => pair.id)).toEqual(PEER_TABLE.map((server) => `peers-${server}`));
    for (const pair of peers) {
      if (pair.id === 'peers-fastapi-fast' && !peerAvailable['fastapi-fast']) continue;
      expectMeasured(pair, SMOKE.http.rounds);
      expectPositive(pair.aMedian.capacity, `${pair.id} bare capacity`);
      expectPositive(pair.bMedian.capacity, `${pair.id} verified capacity`);
    }
    const targets = Object.fromEntries(http.pairs.map((pair) => [pair.id, pair.target?.text]));
    expect(targets['fastapi-fast-rest-itemsJwt']).toBe('≥ 1.30×');
    expect(targets['fastapi-fast-rest-itemsJwtCached']).toBe('≥ 1.80×');
    const tails = Object.fromEntries(http.tails.map((row) => [row.target, row]));
    for (const target of ['rest:itemsJwt', 'rest:itemsJwtCached', 'express:itemsJwt', 'hono:itemsJwt', 'fastify:itemsJwt']) {
      // Where FastAPI cannot run, its pair skips the cached route; the runtime pairs (our server on
      // this Node and on the LTS) may still load it, and then report its tail.
      if (target === 'rest:itemsJwtCached' && !peerAvailable['fastapi-fast'] && tails[target] === undefined) continue;
      // Node servers report their event loop's delay and GC pauses over each run.
      expectPositive(tails[target]?.loopDelayMaxUs, `${target} event-loop delay`);
      expect(tails[target]!.gcMsPerSecond, target).toBeGreaterThanOrEqual(0);
      expect(tails[target]!.runs, target).toBeGreaterThan(0);
    }
    const text = renderResults(results, 'text');
    expect(text).toContain('== Peer table: the same verified route on the stacks users pick');
    expect(text).toContain('== Tail latency of the verified routes');
  });

  it('splits the protected request’s time for every face, in both forms', () => {
    const splits = results.http!.timeSplits;
    expect(splits.map((row) => `${row.face} ${row.form}`)).toEqual(
      ['trpc-standalone', 'trpc-fetch', 'rest'].flatMap((face) => [`${face} 3 steps`, `${face} 1 step`]),
    );
    for (const row of splits) {
      const what = `${row.face} ${row.form}`;
      expectPositive(row.nodeHttp, `${what} node:http`);
      expectPositive(row.protectedTotal, `${what} protected total`);
      expect([row.adapter, row.requestAndAnswer, row.securityOverHttp].every(Number.isFinite), what).toBe(true);
    }
    // The step and our-code columns come from the in-process pairs, which this run left out.
    expect(splits.every((row) => Number.isNaN(row.trpcSteps) && Number.isNaN(row.ours))).toBe(true);
  });

  it('renders the tables and writes the JSON file and the document section', () => {
    const text = renderResults(results, 'text');
    for (const heading of ['== Over HTTP on 127.0.0.1', '== Where a protected request’s server CPU time goes', '== Memory']) {
      expect(text).toContain(heading);
    }
    for (const pair of results.http!.pairs) expect(text).toContain(pair.b);
    const markdown = renderResults(results, 'markdown');
    expect(markdown).toMatch(/^\| group \| A \(reference\) \| B \| CPU\/req A \| CPU\/req B \| capacity B\/A \|/m);

    const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
    try {
      const file = writeResults(results, dir);
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(results)));
      const doc = join(dir, 'BENCHMARKS.md');
      writeFileSync(doc, `# Benchmarks\n\nintro\n\n${DOC_BEGIN}\nold table\n${DOC_END}\n\nafter\n`);
      updateDoc(results, doc);
      const updated = readFileSync(doc, 'utf8');
      expect(updated).not.toContain('old table');
      expect(updated).toContain(`${DOC_BEGIN}\n${markdown}${DOC_END}\n\nafter\n`);
      expect(updated.startsWith('# Benchmarks\n\nintro\n\n')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('profile section', () => {
  it('profiles the in-process call and each of our servers under load, sharing the busy time among owners', async () => {
    const results = await runBench({ ...SMOKE, sections: ['profile'] }, null);
    const reports = results.profiles!.reports;
    expect(reports.map((report) => report.id)).toEqual([
      'in-process:bearer-two-scopes',
      'in-process:bearer-with-scopes',
      ...PROFILED.map(([face, route]) => `${face}:${route}`),
    ]);
    expect(PROFILED).toEqual(expect.arrayContaining([['rest', 'items'], ['rest', 'itemsOneStep']]));
    for (const report of reports) {
      expect(report.skipped, report.id).toBeUndefined();
      expectPositive(report.requests, `${report.id} requests`);
      expectPositive(report.busyMs, `${report.id} busy`);
      for (const shares of [report.shares!, report.byCaller!]) {
        expect(Object.keys(shares)).toEqual([...OWNERS]);
        expect(Object.values(shares).reduce((a, b) => a + b, 0), report.id).toBeCloseTo(1, 9);
        // Every route runs through tRPC: a profile that finds none of it is misattributed.
        expect(shares['@trpc/server'], report.id).toBeGreaterThan(0);
      }
      // Counting callers moves time from Node and native code to packages, never the other way.
      expect(report.byCaller!['@trpc/server']).toBeGreaterThanOrEqual(report.shares!['@trpc/server']!);
      expect(report.byCaller!['node (JS)']).toBeLessThanOrEqual(report.shares!['node (JS)']!);
      expect(report.byCaller!.GC).toBe(report.shares!.GC);
      expect(report.trpcSpreadHelpers).toBeGreaterThanOrEqual(0);
      expect(report.trpcSpreadHelpers).toBeLessThanOrEqual(report.shares!['@trpc/server']!);
    }
    expect(renderResults(results, 'text')).toContain('== Who owns the CPU time (node --cpu-prof)');
  }, 120_000);
});

describe('degrading without the peer or apt-get', () => {
  const path = process.env.PATH;
  afterAll(() => {
    process.env.PATH = path;
  });

  it('skips the FastAPI pairs with the reason when Python cannot run them, and measures ours', async () => {
    const results = await runBench(
      { ...SMOKE, sections: ['http'], python: '/nonexistent/python3', only: ['fastapi-fast-rest-bare', 'cost-rest'] },
      null,
    );
    const byId = (id: string) => results.http!.pairs.find((pair) => pair.id === id)!;
    const [peerPair, ourPair] = [byId('fastapi-fast-rest-bare'), byId('cost-rest')];
    expect(peerPair!.skipped).toMatch(/^FastAPI httptools\+uvloop did not start: \/nonexistent\/python3 did not run/);
    expect(ourPair!.skipped).toBeUndefined();
    expect(results.notes).toContain('FastAPI fast stack skipped: /nonexistent/python3 did not run');
  }, 60_000);

  it('says how to install when apt-get is not there, instead of failing', async () => {
    process.env.PATH = mkdtempSync(join(tmpdir(), 'no-apt-'));
    const outcome = await aptInstall(['wrk']);
    expect(outcome.ok).toBe(false);
    expect(outcome.message).toMatch(/(apt-get is not available|not running as root|not on Linux).*install them yourself: apt-get install wrk$/);
  });
});
