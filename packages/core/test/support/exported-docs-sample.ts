// What the TSDoc check must catch and let through; read by test/tsdoc.test.ts, never imported.

/** A function without an example: the check must name it. */
export function undocumentedCall(): void {}

/** A constant holding a function, without an example: named too. */
export const arrowCall = (): void => {};

/** A class without an example: named too. */
export class UndocumentedClass {}

/**
 * A function with an example: passes.
 *
 * @example
 * ```ts
 * documentedCall();
 * ```
 */
export function documentedCall(): void {}

/** A type with a summary only: passes. */
export type SummaryOnly = string;

/** A constant with a summary only: passes. */
export const SUMMARY_ONLY = 1;

export const NO_SUMMARY = 2;
