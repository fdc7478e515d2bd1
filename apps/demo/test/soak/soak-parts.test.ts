import { describe, expect, it } from 'vitest';
import { DEFAULT_SOAK_OPTIONS, soakArguments } from '../../soak/options.js';
import { formatSoakReport, missedTargets } from '../../soak/report.js';
import type { SoakReport } from '../../soak/run.js';
import { mergeCounts, SoakTally } from '../../soak/tally.js';

describe('soakArguments', () => {
  it('defaults to 60 s on 100 connections after a 10 s warm-up, 2 login loops', () => {
    expect(soakArguments([], {})).toEqual({ options: { durationSeconds: 60, warmupSeconds: 10, connections: 100, loginConcurrency: 2, instances: 1 }, jsonFile: undefined });
    expect(DEFAULT_SOAK_OPTIONS.connections).toBe(100);
  });

  it('reads flags, and the environment where no flag is given', () => {
    expect(soakArguments(['--duration', '5', '--connections', '10', '--json', 'out.json'], { SOAK_DURATION: '30', SOAK_LOGINS: '1', SOAK_WARMUP: '2', SOAK_INSTANCES: '2' })).toEqual({
      options: { durationSeconds: 5, warmupSeconds: 2, connections: 10, loginConcurrency: 1, instances: 2 },
      jsonFile: 'out.json',
    });
  });

  it.each<[string[], Record<string, string>, string]>([
    [['--duration', '0'], {}, '--duration (SOAK_DURATION) must be an integer from 1 to 3600, got "0"'],
    [[], { SOAK_CONNECTIONS: 'many' }, '--connections (SOAK_CONNECTIONS) must be an integer from 1 to 1000, got "many"'],
    [['--logins', '1.5'], {}, '--logins (SOAK_LOGINS) must be an integer from 1 to 16, got "1.5"'],
    [['--host', '0.0.0.0'], {}, "Unknown option '--host'"],
    [['--instances', '5'], {}, '--instances (SOAK_INSTANCES) must be an integer from 1 to 4, got "5"'],
    [['--instances', '3', '--connections', '2'], {}, '--connections (2) must be at least --instances (3)'],
  ])('refuses %j %j', (args, env, message) => {
    expect(() => soakArguments(args, env)).toThrow(message);
  });
});

describe('SoakTally', () => {
  it('counts responses by request and status, and apart 5xx, 429, unexpected statuses and errors', () => {
    const tally = new SoakTally();
    tally.response('me', 200, [200]);
    tally.response('me', 200, [200]);
    tally.response('login', 429, [400, 429]);
    tally.response('me', 500, [200]);
    tally.response('login', 200, [400, 429]);
    tally.error('me', new Error('socket hang up'));
    expect(tally.counts()).toEqual({
      requests: 5,
      errors: 1,
      serverErrors: 1,
      throttled: 1,
      unexpected: 2,
      byRequest: { me: { '200': 2, '500': 1, error: 1 }, login: { '429': 1, '200': 1 } },
      errorMessages: ['me: unexpected 500', 'login: unexpected 200', 'me: socket hang up'],
    });
  });
});

const counts = (overrides: Partial<SoakReport['run']> = {}): SoakReport['run'] => ({
  requests: 1_000,
  errors: 0,
  serverErrors: 0,
  throttled: 3,
  unexpected: 0,
  byRequest: { 'REST users/me (alice)': { '200': 997 }, 'login unknown user (throttled)': { '400': 10, '429': 3 } },
  errorMessages: [],
  ...overrides,
});
const instance = (run: SoakReport['run'], rssAfter: number, url = 'http://127.0.0.1:4000'): SoakReport['instances'][number] => ({
  url,
  warmup: counts({ requests: 100 }),
  run,
  requestsPerSecond: 16.4,
  latencyMs: { p50: 30, p99: 90, max: 400 },
  memory: {
    before: { rss: 400 * 2 ** 20, heapUsed: 20 * 2 ** 20, collected: true },
    after: { rss: rssAfter * 2 ** 20, heapUsed: 21 * 2 ** 20, collected: true },
    rssGrowth: (rssAfter - 400) / 400,
  },
});
const report = (...instances: SoakReport['instances']): SoakReport => ({
  options: { durationSeconds: 60, warmupSeconds: 10, connections: 100, loginConcurrency: 2 },
  races: { codes: 12, refreshes: 12, lost: 0, doubled: 0 },
  instances,
  warmup: mergeCounts(instances.map((one) => one.warmup)),
  run: mergeCounts(instances.map((one) => one.run)),
  requestsPerSecond: instances.reduce((sum, one) => sum + one.requestsPerSecond, 0),
});

describe('mergeCounts', () => {
  it('adds the counts of several servers, status by status', () => {
    const a = new SoakTally();
    const b = new SoakTally();
    a.response('me', 200, [200]);
    b.response('me', 200, [200]);
    b.response('me', 502, [200]);
    b.response('login', 429, [400, 429]);
    a.error('me', new Error('socket hang up'));
    expect(mergeCounts([a.counts(), b.counts()])).toEqual({
      requests: 4,
      errors: 1,
      serverErrors: 1,
      throttled: 1,
      unexpected: 1,
      byRequest: { me: { '200': 2, '502': 1, error: 1 }, login: { '429': 1 } },
      errorMessages: ['me: socket hang up', 'me: unexpected 502'],
    });
  });
});

describe('missedTargets', () => {
  it.each<[string, SoakReport, string[]]>([
    ['a clean run', report(instance(counts(), 420)), []],
    ['errors', report(instance(counts({ errors: 2 }), 400)), ['2 requests got no response']],
    ['a 5xx', report(instance(counts({ serverErrors: 1, unexpected: 1 }), 400)), ['1 responses were 5xx', '1 responses had a status the mix does not allow']],
    ['RSS growth of 10%', report(instance(counts(), 440)), ['RSS grew by 10.0% (target: under 10.0%)']],
    ['two clean servers', report(instance(counts(), 420), instance(counts(), 380)), []],
    [
      'races at /oidc without a winner or with two',
      { ...report(instance(counts(), 400)), races: { codes: 12, refreshes: 11, lost: 1, doubled: 2 } },
      ['1 races at /oidc had no winner', '2 races at /oidc had more than one winner'],
    ],
    ['no race at all', { ...report(instance(counts(), 400)), races: { codes: 0, refreshes: 0, lost: 0, doubled: 0 } }, ['no race at /oidc ran']],
    [
      'a 5xx and RSS growth on the second of two servers',
      report(instance(counts(), 420), instance(counts({ serverErrors: 1, unexpected: 1 }), 480)),
      [
        'in all, 1 responses were 5xx',
        'in all, 1 responses had a status the mix does not allow',
        'on server B, 1 responses were 5xx',
        'on server B, 1 responses had a status the mix does not allow',
        'server B: RSS grew by 20.0% (target: under 10.0%)',
      ],
    ],
  ])('%s', (_name, soak, missed) => {
    expect(missedTargets(soak)).toEqual(missed);
  });

  it('leaves memory out when asked', () => {
    expect(missedTargets(report(instance(counts(), 800)), { checkMemory: false })).toEqual([]);
  });
});

describe('formatSoakReport', () => {
  it('prints the totals, each server’s figures and each request’s statuses', () => {
    const lines = formatSoakReport(report(instance(counts(), 420), instance(counts({ requests: 900 }), 380, 'http://127.0.0.1:4001')));
    expect(lines.slice(0, 8)).toEqual([
      'soak: 60 s after a 10 s warm-up, 100 connections + 2 login loops, 2 server(s), 127.0.0.1',
      'load         33 req/s in all',
      'responses    1900 (warm-up: 200)',
      'errors       0 (warm-up: 0)',
      '5xx          0 (warm-up: 0)',
      'unexpected   0 (warm-up: 0)',
      '429          6 (warm-up: 6), all from the login throttle',
      'races /oidc  12 codes and 12 refresh tokens, each spent by 20 requests at once: 0 lost, 0 doubled',
    ]);
    expect(lines.slice(16, 24)).toEqual([
      'server B (http://127.0.0.1:4001): load 16 req/s, latency p50 30 ms, p99 90 ms, max 400 ms',
      '  responses    900 (warm-up: 100)',
      '  errors       0 (warm-up: 0)',
      '  5xx          0 (warm-up: 0)',
      '  unexpected   0 (warm-up: 0)',
      '  429          3 (warm-up: 3), all from the login throttle',
      '  RSS          400.0 MiB → 380.0 MiB (-5.0%), each after a full GC',
      '  heap used    20.0 MiB → 21.0 MiB',
    ]);
    expect(lines.at(-1)).toBe(`  ${'login unknown user (throttled)'.padEnd(60)} 400: 20, 429: 6`);
  });
});
