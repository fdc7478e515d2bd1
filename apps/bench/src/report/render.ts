import type { Verdict } from '../targets.js';
import type { PairReport } from './pair-report.js';
import type { BenchResults } from './results.js';
import { OWNERS } from '../profile/cpu-profile-shares.js';
import { renderTable } from './text-table.js';

type Format = 'text' | 'markdown';

const number = (value: number | undefined, digits = 0) =>
  value === undefined || !Number.isFinite(value) ? '—' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ns = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value) ? '—' : value < 1000 ? `${number(value)} ns` : `${number(value / 1000, 2)} µs`;
const us = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '—' : `${number(value, 1)} µs`);
const ms = (valueUs: number | undefined) => (valueUs === undefined || !Number.isFinite(valueUs) ? '—' : `${number(valueUs / 1000, 2)} ms`);
const ratio = (value: number | undefined) => (value === undefined || !Number.isFinite(value) ? '—' : `${value.toFixed(3)}×`);
const range = (pair: PairReport, metric: string) => {
  const spread = pair.ratios[metric];
  return spread === undefined ? '—' : `${spread.min.toFixed(2)}–${spread.max.toFixed(2)}`;
};
const mib = (kib: number | null | undefined) => (kib === null || kib === undefined ? '—' : `${number(kib / 1024, 1)} MiB`);

const VERDICTS: Readonly<Record<Verdict, string>> = { met: 'met', missed: 'MISSED', none: '' };
const verdictCell = (pair: PairReport) => (pair.skipped !== undefined ? 'skipped' : VERDICTS[pair.verdict]);

/** The group name on the first row of each group only. */
const grouped = (pairs: readonly PairReport[], row: (pair: PairReport) => string[]) =>
  pairs.map((pair, i) => [i > 0 && pairs[i - 1]!.group === pair.group ? '' : pair.group, ...row(pair)]);

function inProcessTable(results: BenchResults, format: Format): string {
  const pairs = results.inProcess!.pairs;
  return renderTable(
    ['group', 'A (reference)', 'B', 'A per call', 'B per call', 'B/A time', 'range', 'target', 'verdict'],
    grouped(pairs, (pair) => [
      pair.a,
      pair.b + (pair.note ? ` (${pair.note})` : ''),
      ns(pair.aMedian.cpuNsPerCall),
      ns(pair.bMedian.cpuNsPerCall),
      ratio(pair.ratios.cpuNsPerCall?.median),
      range(pair, 'cpuNsPerCall'),
      pair.target?.text ?? '',
      verdictCell(pair),
    ]),
    format,
  );
}

function httpTable(results: BenchResults, format: Format): string {
  const pairs = results.http!.pairs;
  return renderTable(
    ['group', 'A (reference)', 'B', 'CPU/req A', 'CPU/req B', 'capacity B/A', 'range', 'target', 'verdict', 'req/s A', 'req/s B', 'req/s B/A', 'p99 A', 'p99 B', 'p99 B/A'],
    grouped(pairs, (pair) => [
      pair.a,
      pair.b,
      us(pair.aMedian.cpuUsPerRequest),
      us(pair.bMedian.cpuUsPerRequest),
      ratio(pair.ratios.capacity?.median),
      range(pair, 'capacity'),
      pair.target?.text ?? '',
      verdictCell(pair),
      number(pair.aMedian.rps),
      number(pair.bMedian.rps),
      ratio(pair.ratios.rps?.median),
      ms(pair.aMedian.p99Us),
      ms(pair.bMedian.p99Us),
      ratio(pair.ratios.p99Us?.median),
    ]),
    format,
  );
}

function splitTable(results: BenchResults, format: Format): string {
  return renderTable(
    ['face', 'form', 'node:http + kernel', 'adapter + call', 'larger request + answer', 'security (HTTP)', "in-process: tRPC's .use() steps", 'in-process: our code', 'protected total', 'our share'],
    results.http!.timeSplits.map((row) => [
      row.face,
      row.form,
      us(row.nodeHttp),
      us(row.adapter),
      us(row.requestAndAnswer),
      us(row.securityOverHttp),
      us(row.trpcSteps),
      us(row.ours),
      us(row.protectedTotal),
      Number.isFinite(row.ours / row.protectedTotal) ? `${((100 * row.ours) / row.protectedTotal).toFixed(1)} %` : '—',
    ]),
    format,
  );
}

function peerTable(results: BenchResults, format: Format): string {
  const pairs = results.http!.pairs.filter((pair) => pair.group.startsWith('peer table'));
  return renderTable(
    ['stack', 'bare: req per CPU-s', 'verified JWT: req per CPU-s', 'CPU/req bare', 'CPU/req verified', 'verified/bare capacity', 'range', 'p99 bare', 'p99 verified'],
    pairs.map((pair) =>
      pair.skipped !== undefined
        ? [pair.a.replace(/ bare$/, ''), `not run: ${pair.skipped.split('\n')[0]}`, '', '', '', '', '', '', '']
        : [
            pair.a.replace(/ bare$/, ''),
            number(pair.aMedian.capacity),
            number(pair.bMedian.capacity),
            us(pair.aMedian.cpuUsPerRequest),
            us(pair.bMedian.cpuUsPerRequest),
            ratio(pair.ratios.capacity?.median),
            range(pair, 'capacity'),
            ms(pair.aMedian.p99Us),
            ms(pair.bMedian.p99Us),
          ],
    ),
    format,
  );
}

function tailTable(results: BenchResults, format: Format): string {
  return renderTable(
    ['route', 'runs', 'req/s', 'p50', 'p99', 'event-loop delay p99', 'event-loop delay max', 'GC ms per s', 'longest GC pause'],
    results.http!.tails.map((row) => [
      row.label,
      String(row.runs),
      number(row.rps),
      ms(row.p50Us),
      ms(row.p99Us),
      ms(row.loopDelayP99Us),
      ms(row.loopDelayMaxUs),
      number(row.gcMsPerSecond, 1),
      Number.isFinite(row.gcMaxPauseMs) ? `${number(row.gcMaxPauseMs, 2)} ms` : '—',
    ]),
    format,
  );
}

function memoryTable(results: BenchResults, format: Format): string {
  const rows = results.http!.servers.map((server) => [
    server.label + (server.skipped === undefined ? '' : ` (not run: ${server.skipped.split('\n')[0]})`),
    mib(server.before?.rssKiB),
    mib(server.after?.rssKiB),
    mib(server.after?.peakRssKiB),
    mib(server.heapAfterGcKiB?.before),
    mib(server.heapAfterGcKiB?.after),
  ]);
  if (results.inProcess !== null) {
    const { before, after } = results.inProcess.rssKiB;
    rows.unshift(['bench process (in-process section)', mib(before), mib(after), '—', '—', '—']);
  }
  return renderTable(['process', 'RSS before', 'RSS after', 'peak RSS', 'heap after GC, before', 'heap after GC, after'], rows, format);
}

const percent = (share: number | undefined) => `${(100 * (share ?? 0)).toFixed(1)} %`;

function profileTable(results: BenchResults, format: Format, view: 'shares' | 'byCaller'): string {
  const spread = view === 'shares' ? ["of which tRPC's spread helpers"] : [];
  return renderTable(
    ['route', 'calls', 'busy', ...OWNERS, ...spread],
    results.profiles!.reports.map((report) =>
      report.skipped !== undefined
        ? [report.label, `not profiled: ${report.skipped}`, '', ...OWNERS.map(() => ''), ...spread.map(() => '')]
        : [
            report.label,
            number(report.requests),
            `${number(report.busyMs)} ms`,
            ...OWNERS.map((owner) => percent(report[view]?.[owner])),
            ...spread.map(() => percent(report.trpcSpreadHelpers)),
          ],
    ),
    format,
  );
}

/**
 * The results as the tables printed on stdout (`text`) or written into BENCHMARKS.md
 * (`markdown`): in-process pairs, HTTP pairs, where the time goes, memory, and notes.
 *
 * @example
 * ```ts
 * process.stdout.write(renderResults(results, 'text'));
 * ```
 */
export function renderResults(results: BenchResults, format: Format): string {
  const heading = (text: string) => (format === 'markdown' ? `### ${text}` : `== ${text}`);
  const m = results.machine;
  const parts = [
    `${results.mode} run, ${results.startedAt}, ${results.seconds} s — ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}; load average ${m.loadAverage.join(' ')} at the start, ${results.loadAverageAtEnd.join(' ')} at the end`,
  ];
  if (results.inProcess !== null) {
    const b = results.inProcess.budget;
    parts.push(
      heading('In-process (createCaller, no network)'),
      `CPU time per call, median over ${b.rounds} rounds of ${b.sideMs} ms per side, sides alternating; B/A < 1 means B is faster.`,
      inProcessTable(results, format),
    );
  }
  if (results.http !== null) {
    const h = results.http;
    const peer = Object.entries(h.peer.versions).map(([name, version]) => `${name} ${version}`).join(', ');
    parts.push(
      heading('Over HTTP on 127.0.0.1'),
      `${h.generator.name} ${h.generator.version}, ${h.budget.connections} connections, ${h.budget.rounds} rounds of ${h.budget.seconds} s per side, sides alternating, each server in its own process. CPU/req is the server's CPU time per request (all its threads, from /proc); capacity = 1 / CPU/req, the req/s one busy core serves, which other work on the machine does not skew: the targets are checked on it. req/s and p99 are wall-clock figures, shown for reference. Peer: ${peer || 'not found'}.${h.ltsNode === undefined ? '' : ` Our servers run on this machine's Node, ${results.machine.node}, except those marked "on LTS Node": ${h.ltsNode}.`}`,
      httpTable(results, format),
      ...(h.pairs.some((pair) => pair.group.startsWith('peer table'))
        ? [
            heading('Peer table: the same verified route on the stacks users pick'),
            'Each stack serves a bare route and a route that verifies the same ES256 JWT (key given locally) and requires two scopes, measured as one pair per stack (sides alternating). Capacity is requests per CPU-second of the server; the ratio is what the security layer costs on its own framework.',
            peerTable(results, format),
          ]
        : []),
      ...(h.tails.length > 0
        ? [
            heading('Tail latency of the verified routes'),
            `Medians over every run of each route, at ${h.budget.connections} connections. The event-loop delay (sampled every 10 ms) and GC pauses are what the server itself saw during the same runs (Node servers only; FastAPI does not tell).`,
            tailTable(results, format),
          ]
        : []),
      heading('Where a protected request’s server CPU time goes'),
      'HTTP figures are medians of every run of each route; the first four columns add up to the protected total. "larger request + answer" is the control route (the protected route’s request and answer, no security) over the bare route; "security (HTTP)" is the protected route over the control. The in-process columns split the security: as many pass-through middlewares as the form has steps over none, and the form over them.',
      splitTable(results, format),
      heading('Memory'),
      'Each server’s resident set size once started (before any load) and after its last run; for our Node servers also the heap in use after a full collection, which tells a heap that grew and stays (a leak) from one not yet collected.',
      memoryTable(results, format),
    );
  }
  if (results.profiles !== null) {
    const p = results.profiles;
    parts.push(
      heading('Who owns the CPU time (node --cpu-prof)'),
      `Each route loaded for ${p.budget.seconds} s (${p.generator}, ${p.budget.connections} connections) after ${p.budget.warmupSeconds} s of warm-up, under V8's sampling profiler (what \`node --cpu-prof\` runs, every 250 µs); self time by owner, as a share of the busy time. "app" is the bench's router (resolvers, output schemas); "native" is code without a script: syscalls (writev), the HTTP parser, JSON.`,
      'By the code that ran (self time):',
      profileTable(results, format, 'shares'),
      "Counting Node's own JavaScript and native code for the package that called it (what no package called, such as the HTTP parser, stays Node's):",
      profileTable(results, format, 'byCaller'),
    );
  }
  const skipped = [...(results.inProcess?.pairs ?? []), ...(results.http?.pairs ?? [])].filter(
    (pair) => pair.skipped !== undefined || pair.warnings !== undefined,
  );
  const notes = [
    ...results.notes,
    ...skipped.map((pair) => `${pair.id}: ${pair.skipped ?? pair.warnings!.join('; ')}`),
  ];
  if (notes.length > 0) parts.push(heading('Notes'), notes.map((text) => `- ${text.replace(/\n/g, ' ')}`).join('\n'));
  return `${parts.join('\n\n')}\n`;
}
