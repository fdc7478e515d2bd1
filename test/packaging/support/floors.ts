/**
 * The lowest version a peer range admits, as `npm install` would pin it: `^11.4.4` → `11.4.4`,
 * `^3.25.74 || ^4.0.0` → `3.25.74`. Only the forms the manifests use (`^x.y.z`, `>=x.y.z`,
 * `x.y.z`, joined by `||`); anything else throws, so a new form is read on purpose.
 *
 * @example
 * ```ts
 * floorOf('^3.25.74 || ^4.0.0'); // '3.25.74'
 * ```
 */
export function floorOf(range: string): string {
  const floors = range.split('||').map((part) => {
    const match = /^\s*(?:\^|>=)?(\d+)\.(\d+)\.(\d+)\s*$/.exec(part);
    if (!match) throw new Error(`floorOf: cannot read the range ${JSON.stringify(range)}`);
    return match.slice(1).map(Number) as [number, number, number];
  });
  floors.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  return floors[0]!.join('.');
}

/**
 * The part of a range that a major admits: `majorOf('^3.25.74 || ^4.0.0', 3)` → `^3.25.74`.
 *
 * @example
 * ```ts
 * majorOf('^3.25.74 || ^4.0.0', 4); // '^4.0.0'
 * ```
 */
export function majorOf(range: string, major: number): string {
  const part = range.split('||').map((p) => p.trim()).find((p) => new RegExp(`^(?:\\^|>=)?${major}\\.`).test(p));
  if (!part) throw new Error(`majorOf: ${JSON.stringify(range)} admits no ${major}.x`);
  return part;
}

/**
 * The error lines of `tsc`'s output, less those located in the declarations of a third-party
 * package (`node_modules/…` other than `@trpc-oauth2/…`): with `skipLibCheck` off, tsc also reports
 * what other packages' declarations need and an app does not install (express, next, …), which is
 * no fault of ours. Errors in the app's own files and in our packages' declarations stay.
 *
 * @example
 * ```ts
 * ownErrors('node_modules/h3/dist/index.d.ts(29,100): error TS2552: …'); // []
 * ```
 */
export function ownErrors(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => /\berror TS\d+/.test(line) && !/^\s/.test(line))
    .filter((line) => !/^(?:.*\/)?node_modules\/(?!@trpc-oauth2\/)/.test(line));
}
