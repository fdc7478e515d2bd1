import { describe, expect, it } from 'vitest';
import { timeSplits } from '../src/report/breakdown.js';
import type { PairReport } from '../src/report/pair-report.js';

// Server CPU µs per request, three runs each: the split reads the median of each route's runs.
const samples = Object.fromEntries(
  Object.entries({
    'node-http:bare': [30, 40, 35],
    'rest:bare': [150, 145, 160],
    'rest:items': [180, 175, 170],
    'rest:itemsOneStep': [158, 162, 157],
    'rest:itemsNoSecurity': [152, 149, 153],
  }).map(([id, runs]) => [id, runs.map((cpuUsPerRequest) => ({ cpuUsPerRequest }))]),
);

// In-process pairs: only their medians (CPU ns per call) matter here.
const pair = (id: string, a: number, b: number): PairReport => ({
  section: 'in-process',
  id,
  group: 'readers',
  a: 'A',
  b: 'B',
  metrics: ['cpuNsPerCall'],
  ratios: {},
  aMedian: { cpuNsPerCall: a },
  bMedian: { cpuNsPerCall: b },
  rounds: [],
  verdict: 'none',
});
const inProcess = [
  pair('three-pass-through', 4_000, 23_500),
  pair('ours-vs-pass-through', 23_800, 25_000),
  pair('one-pass-through', 4_000, 10_500),
  pair('ours-vs-one-pass-through', 10_400, 11_300),
];

describe('timeSplits', () => {
  it.each([
    { form: '3 steps', securityOverHttp: 23, trpcSteps: 19.5, ours: 1.2, protectedTotal: 175 },
    { form: '1 step', securityOverHttp: 6, trpcSteps: 6.5, ours: 0.9, protectedTotal: 158 },
  ])('splits the $form form from its own route and in-process pairs', ({ form, ...split }) => {
    const row = timeSplits(['rest'], samples, inProcess).find((r) => r.form === form)!;
    expect(row).toEqual({ face: 'rest', form, nodeHttp: 35, adapter: 115, requestAndAnswer: 2, ...split });
    // The HTTP columns add up to the protected route's CPU time.
    expect(row.nodeHttp + row.adapter + row.requestAndAnswer + row.securityOverHttp).toBe(row.protectedTotal);
  });

  it('leaves a column it has no measurement for as NaN, never as a number', () => {
    const [threeSteps, oneStep] = timeSplits(['trpc-fetch'], samples, []);
    expect([threeSteps!.form, oneStep!.form]).toEqual(['3 steps', '1 step']);
    for (const row of [threeSteps!, oneStep!]) {
      expect(row.nodeHttp).toBe(35);
      for (const value of [row.adapter, row.requestAndAnswer, row.securityOverHttp, row.trpcSteps, row.ours, row.protectedTotal]) {
        expect(value).toBeNaN();
      }
    }
  });
});
