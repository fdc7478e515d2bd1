import type { Sample } from '../alternate.js';
import { median } from '../stats.js';
import type { PairReport } from './pair-report.js';

/**
 * The two forms of the protected route: the reader and two `requireScopes` as three `.use()`
 * steps, and `withScopes` as one.
 *
 * @example
 * ```ts
 * const form: SecurityForm = '1 step';
 * ```
 */
export type SecurityForm = '3 steps' | '1 step';

/**
 * Where one protected request's server CPU time goes on one face, for one form, in microseconds.
 *
 * @example
 * ```ts
 * const row: TimeSplit = { face: 'rest', form: '1 step', nodeHttp: 40, adapter: 60, requestAndAnswer: 2, securityOverHttp: 8, trpcSteps: 6, ours: 0.9, protectedTotal: 110 };
 * ```
 */
export interface TimeSplit {
  face: string;
  form: SecurityForm;
  /** node:http and the kernel: the CPU time of the same answer from a bare node:http server. */
  nodeHttp: number;
  /** The adapter and tRPC's procedure call: the bare route's CPU time over node:http's. */
  adapter: number;
  /**
   * The protected routes' larger request (the `Authorization` header) and answer (the token and
   * scopes, through the output schema): the control route, which answers them without any
   * security, over the bare route.
   */
  requestAndAnswer: number;
  /** What the protected route costs over the control route on this face, measured over HTTP. */
  securityOverHttp: number;
  /** tRPC's own cost of the form's `.use()` steps (in-process: as many pass-through middlewares over none). */
  trpcSteps: number;
  /** The security layer's own code (in-process: the form over as many pass-through steps). */
  ours: number;
  /** The protected route's CPU time per request over HTTP. */
  protectedTotal: number;
}

const cpu = (samples: Record<string, Sample[]>, id: string) =>
  median((samples[id] ?? []).map((sample) => sample.cpuUsPerRequest!).filter(Number.isFinite));

const delta = (pairs: readonly PairReport[], id: string) => {
  const pair = pairs.find((p) => p.id === id);
  const [a, b] = [pair?.aMedian.cpuNsPerCall, pair?.bMedian.cpuNsPerCall];
  return a === undefined || b === undefined ? Number.NaN : (b - a) / 1000;
};

/** For each form: its HTTP route and the in-process pairs that split its cost. */
const FORMS: readonly { form: SecurityForm; route: string; steps: string; ours: string }[] = [
  { form: '3 steps', route: 'items', steps: 'three-pass-through', ours: 'ours-vs-pass-through' },
  { form: '1 step', route: 'itemsOneStep', steps: 'one-pass-through', ours: 'ours-vs-one-pass-through' },
];

/**
 * Splits each face's protected-request CPU time, for each form, into node:http, the adapter, the
 * larger request and answer, and the security (the form's tRPC steps and our code), from the
 * HTTP runs' CPU times; the in-process pairs split the security into tRPC's steps and our code.
 *
 * @example
 * ```ts
 * const rows = timeSplits(['trpc-standalone', 'rest'], http.samples, inProcessPairs);
 * ```
 */
export function timeSplits(
  faces: readonly string[],
  samples: Record<string, Sample[]>,
  inProcess: readonly PairReport[],
): TimeSplit[] {
  const nodeHttp = cpu(samples, 'node-http:bare');
  return faces.flatMap((face) => {
    const bare = cpu(samples, `${face}:bare`);
    const control = cpu(samples, `${face}:itemsNoSecurity`);
    return FORMS.map(({ form, route, steps, ours }) => {
      const protectedTotal = cpu(samples, `${face}:${route}`);
      return {
        face,
        form,
        nodeHttp,
        adapter: bare - nodeHttp,
        requestAndAnswer: control - bare,
        securityOverHttp: protectedTotal - control,
        trpcSteps: delta(inProcess, steps),
        ours: delta(inProcess, ours),
        protectedTotal,
      };
    });
  });
}
