/**
 * The duration options of the verifiers, checked when a verifier is built. A duration enters
 * comparisons (`exp <= now - clockTolerance`, `now < fetchedAt + cacheMaxAge`): `NaN`, a string
 * such as jose's `'30s'` or an infinity would make them `false` and silently disable the check it
 * bounds (an expired token accepted), so anything but a finite number in range is a `TypeError`.
 * @module
 */

/** The longest delay a timer keeps (2³¹ − 1 ms, about 24.8 days): Node fires a longer one at once. */
const MAX_TIMER_DELAY = 2_147_483_647;

/**
 * What a duration must be: `zeroOrMore` (a tolerance, a cooldown, a cache age), `positive` (a
 * limit that 0 would make refuse everything), `timer` (what `AbortSignal.timeout` takes: a whole
 * number of milliseconds from 1 to 2³¹ − 1; it throws for anything else, failing every call), or
 * `delay` (what `setTimeout` waits: 0 to 2³¹ − 1 milliseconds).
 */
export type DurationBound = 'zeroOrMore' | 'positive' | 'timer' | 'delay';

const REQUIREMENTS: Readonly<Record<DurationBound, string>> = {
  zeroOrMore: 'a finite number of UNIT, 0 or more',
  positive: 'a finite number of UNIT, more than 0',
  timer: `a whole number of milliseconds from 1 to ${MAX_TIMER_DELAY}`,
  delay: `a number of milliseconds from 0 to ${MAX_TIMER_DELAY}`,
};

function fits(value: number, bound: DurationBound): boolean {
  switch (bound) {
    case 'zeroOrMore':
      return Number.isFinite(value) && value >= 0;
    case 'positive':
      return Number.isFinite(value) && value > 0;
    case 'timer':
      return Number.isInteger(value) && value >= 1 && value <= MAX_TIMER_DELAY;
    case 'delay':
      return value >= 0 && value <= MAX_TIMER_DELAY;
  }
}

/**
 * `value`, or `fallback` when it is not given; a `TypeError` naming `option` when it is given and
 * is not a number within `bound`.
 */
export function durationOption<T extends number | undefined>(
  value: unknown,
  fallback: T,
  option: string,
  unit: 'seconds' | 'milliseconds',
  bound: DurationBound,
): number | T {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !fits(value, bound)) throw new TypeError(`${option} must be ${REQUIREMENTS[bound].replace('UNIT', unit)}`);
  return value;
}
