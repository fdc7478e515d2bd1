/**
 * The batch limit of the tRPC handlers: tRPC alone runs any number of calls per request, each
 * with its own authentication and resolver.
 * @module
 */
/**
 * The most calls one tRPC batch may hold when `maxBatchSize` is not given, on both tRPC adapters
 * of this package: a larger batch is a 400 and none of its calls runs. tRPC alone sets no limit,
 * so one request could run any number of calls (each with its own authentication and resolver).
 * Set the client's `maxItems` (`httpBatchLink`, `httpBatchStreamLink`) to the same or a lower
 * number. See `docs/contract.md#body-limits`.
 */
export const DEFAULT_MAX_BATCH_SIZE = 20;

/**
 * The batch limit for a `maxBatchSize` option: {@link DEFAULT_MAX_BATCH_SIZE} when it is not
 * given (`Infinity` lifts the limit). Any other value than a whole number of calls is a
 * `TypeError`: tRPC compares a batch's length with it, and `NaN` compares false with every length,
 * a limit that refuses nothing (docs/contract.md#body-limits).
 *
 * @example
 * ```ts
 * batchLimit(undefined); // 20
 * ```
 */
export const batchLimit = (maxBatchSize: number | undefined): number => {
  if (maxBatchSize === undefined) return DEFAULT_MAX_BATCH_SIZE;
  if ((Number.isSafeInteger(maxBatchSize) && maxBatchSize >= 0) || maxBatchSize === Number.POSITIVE_INFINITY) return maxBatchSize;
  throw new TypeError(`maxBatchSize must be a whole number of calls, 0 or more, or Infinity (got ${String(maxBatchSize)})`);
};
